// A `node --test` reporter that writes only the failed tests, each with its file and error, so
// that scripts/run-tests.js can print them again after the TAP summary: CI keeps only the tail of
// a long run, and a failure in the middle of 1,400 tests would otherwise not be in it. A file's
// printed lines that tell how to replay its run (a crash test's `WEAVE_CRASH_SEED=…`) go with its
// failures.
import { inspect } from 'node:util';

/** @param {AsyncIterable<{type: string, data: any}>} source */
export default async function* failuresReporter(source) {
  /** Per file, the names of the suites and test open at each nesting level. */
  const open = new Map();
  /** Per file, its printed lines that name a `WEAVE_…=` setting to replay it with. */
  const replay = new Map();
  const failures = [];
  for await (const event of source) {
    const { file } = event.data ?? {};
    if (event.type === 'test:start') {
      const names = open.get(file) ?? [];
      names.length = event.data.nesting;
      names.push(event.data.name);
      open.set(file, names);
    } else if (event.type === 'test:stdout' || event.type === 'test:stderr') {
      for (const line of String(event.data.message).split('\n')) {
        if (/WEAVE_[A-Z_]+=/.test(line)) {
          replay.set(file, (replay.get(file) ?? new Set()).add(line.trim()));
        }
      }
    } else if (event.type === 'test:fail') {
      const { name, line, nesting, details } = event.data;
      // A suite fails when one of its tests does; the test itself is reported on its own.
      if (details?.error?.failureType === 'subtestsFailed') continue;
      const where = file ? `${file}${line ? `:${line}` : ''}` : '(unknown file)';
      const error = inspect(details?.error?.cause ?? details?.error, { depth: 4 });
      const path = [...(open.get(file) ?? []).slice(0, nesting), name].join(' > ');
      failures.push({
        file,
        text: `not ok - ${path}\n  at ${where}\n${error.replace(/^/gm, '  ')}\n`,
      });
    }
  }
  // At the end: a file's printed lines may come after its failures.
  for (const { file, text } of failures) {
    const lines = [...(replay.get(file) ?? [])].map((l) => `  printed: ${l}\n`).join('');
    yield `${text}${lines}\n`;
  }
}
