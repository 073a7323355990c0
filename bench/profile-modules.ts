/**
 * What the summaries of a burn-down drain share: the module a V8 profile's frame belongs to (an
 * npm package, a file of a workspace package, a Node module, a native function), used by
 * `profile-summary.ts` (CPU) and `heap-summary.ts` (allocation), and the drain windows the
 * burn-down prints, used by `profile-summary.ts` and `alloc-per-job.ts`.
 */
import { readFileSync } from 'node:fs';

export interface FrameLocation {
  readonly functionName: string;
  readonly url: string;
}

/** The module a frame belongs to, named as the tables show it. */
export function moduleOf(frame: FrameLocation): string {
  const { url, functionName } = frame;
  if (url === '') {
    // `(garbage collector)`, `(idle)`, `(program)`, or a native function such as `writev`.
    return functionName.startsWith('(') ? functionName : `(native) ${functionName}`;
  }
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (npm !== null) {
    return `npm:${npm[1]}`;
  }
  const workspace = /packages\/([^/]+)\/build\/src\/(.+)\.js$/.exec(url);
  if (workspace !== null) {
    return `${workspace[1]}:${workspace[2]}`;
  }
  return url.startsWith('node:') ? url : url.replace(/^file:\/\//, '');
}

/** A drain's window on the monotonic clock, in µs. */
export interface DrainWindow {
  readonly from: number;
  readonly to: number;
}

/**
 * The drain windows of a burn-down log, in order (the burn-down prints a "drain from … to … µs"
 * line a drain when `WEAVE_BENCH_NODE_ARGS` is set); none found prints why and exits 2.
 */
export function drainWindows(logFile: string): DrainWindow[] {
  const windows = [...readFileSync(logFile, 'utf8').matchAll(/drain from (\d+) to (\d+) µs/g)].map(
    (m) => ({ from: Number(m[1]), to: Number(m[2]) }),
  );
  if (windows.length === 0) {
    console.error(`${logFile}: no "drain from … to … µs" line (was WEAVE_BENCH_NODE_ARGS set?)`);
    process.exit(2);
  }
  return windows;
}
