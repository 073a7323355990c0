import type { JsonObject, JsonValue } from '@weave/json';
import { utf8ByteLength } from '@weave/json';
import { NAME_PATTERN } from './limits.js';
import { pathKey } from './json-path.js';
import type { Problems } from './problems.js';
import { describeKind, readString, report } from './problems.js';
import type { Scope, Template } from './template.js';
import { compileTemplate } from './template.js';

/** Field compilers shared by several step kinds: names, string expressions, value constructions. */

/** A queue or signal name (`^[a-z0-9][a-z0-9_.-]{0,62}$`); '' when absent or wrong. */
export function readName(
  object: JsonObject,
  key: string,
  path: string,
  problems: Problems,
): string {
  const name = readString(object, key, path, problems);
  if (name === undefined) {
    return '';
  }
  if (!NAME_PATTERN.test(name)) {
    const at = pathKey(path, key);
    const message = `${at} must match ^[a-z0-9][a-z0-9_.-]{0,62}$ (got "${name}")`;
    report(problems, at, 'invalid_name', message);
  }
  return name;
}

/**
 * A string-valued expression: a literal string or a reference. Literals are checked here
 * against the byte bound; references are checked again on every activation (the planner FAILs
 * the step if the resolved value breaks the rule).
 */
export function compileStringExpression(
  value: JsonValue,
  path: string,
  options: { readonly scope: Scope; readonly problems: Problems; readonly maxBytes: number },
): Template {
  const { scope, problems, maxBytes } = options;
  if (typeof value !== 'string') {
    report(
      problems,
      path,
      'invalid_type',
      `${path} must be a string or a reference (got ${describeKind(value)})`,
    );
    return { t: 'value', value: '', size: 2 };
  }
  const compiled = compileTemplate(value, path, scope, problems);
  const template = compiled.template;
  if (template.t === 'value' && typeof template.value === 'string') {
    const bytes = utf8ByteLength(template.value);
    if (bytes === 0 || bytes > maxBytes) {
      const message = `${path} must be 1 to ${maxBytes} UTF-8 bytes (got ${bytes})`;
      report(problems, path, 'invalid_value', message);
    }
  } else if (compiled.type.types !== undefined && !compiled.type.types.has('string')) {
    const message = `${path} must resolve to a string (the reference is ${[...compiled.type.types].join(' or ')})`;
    report(problems, path, 'invalid_reference', message);
  }
  return template;
}

/** An optional construction member; `fallback` when absent. */
export function compileValue(
  object: JsonObject,
  key: string,
  path: string,
  options: { readonly scope: Scope; readonly problems: Problems; readonly fallback: JsonValue },
): Template {
  const value = object.get(key) ?? options.fallback;
  return compileTemplate(value, pathKey(path, key), options.scope, options.problems).template;
}
