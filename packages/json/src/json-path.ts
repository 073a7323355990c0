/** One step from a container to a member: an object key or an array index. */
export type PathSegment = string | number;

/** Keys written `.name`; anything else is written `["…"]` so the path stays unambiguous. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The JSON path of the first `length` segments: `$`, `$.name`, `$["odd key"]`, `$.items[3]`.
 * Odd keys are quoted as JSON strings (lone surrogates escaped, so a path is always valid text).
 */
export function formatJsonPath(segments: readonly PathSegment[], length: number): string {
  let path = '$';
  for (let i = 0; i < length; i++) {
    const segment = segments[i] ?? '';
    if (typeof segment === 'number') {
      path += `[${segment}]`;
    } else if (IDENTIFIER.test(segment)) {
      path += '.' + segment;
    } else {
      path += `[${JSON.stringify(segment)}]`;
    }
  }
  return path;
}
