/**
 * The module a V8 profile's frame belongs to (an npm package, a file of a workspace package, a
 * Node module, a native function), shared by `profile-summary.ts` (CPU) and `heap-summary.ts`
 * (allocation).
 */
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
