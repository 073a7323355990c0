// A `node --test` reporter that writes only the failed tests, each with its file and error, so
// that scripts/run-tests.js can print them again after the TAP summary: CI keeps only the tail of
// a long run, and a failure in the middle of 1,400 tests would otherwise not be in it.
import { inspect } from 'node:util';

/** @param {AsyncIterable<{type: string, data: any}>} source */
export default async function* failuresReporter(source) {
  /** Per file, the names of the suites and test open at each nesting level. */
  const open = new Map();
  for await (const event of source) {
    if (event.type === 'test:start') {
      const { name, file, nesting } = event.data;
      const names = open.get(file) ?? [];
      names.length = nesting;
      names.push(name);
      open.set(file, names);
    }
    if (event.type !== 'test:fail') continue;
    const { name, file, line, nesting, details } = event.data;
    // A suite fails when one of its tests does; the test itself is reported on its own.
    if (details?.error?.failureType === 'subtestsFailed') continue;
    const where = file ? `${file}${line ? `:${line}` : ''}` : '(unknown file)';
    const error = inspect(details?.error?.cause ?? details?.error, { depth: 4 });
    const path = [...(open.get(file) ?? []).slice(0, nesting), name].join(' > ');
    yield `not ok - ${path}\n  at ${where}\n${error.replace(/^/gm, '  ')}\n\n`;
  }
}
