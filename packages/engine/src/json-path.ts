/**
 * JSON paths in the style of `@weave/json` errors: `$`, `$.name`, `$["odd key"]`, `$.items[3]`.
 * Problems and `EngineError.details.path` use them.
 */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function pathKey(path: string, key: string): string {
  return PLAIN_KEY.test(key) ? `${path}.${key}` : `${path}[${quote(key)}]`;
}

export function pathIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** A double-quoted string with JSON escapes for `"`, `\` and control characters. */
export function quote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (char === '"' || char === '\\') {
      out += `\\${char}`;
    } else if (code < 0x20) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else {
      out += char;
    }
  }
  return `${out}"`;
}
