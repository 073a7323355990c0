/**
 * JSON Schema validation of protocol schemas with a standard validator (Ajv, draft 2020-12, the
 * dialect of OpenAPI 3.1) — used by the reader/schema agreement test and by the test servers,
 * which check every success answer against its route's answer schema.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonInput } from '@weave/json';
import { stringify } from '@weave/json';
import type { Schema } from '@weave/sdk/protocol';

// ajv-formats is CommonJS (module.exports is the plugin); its types describe an ES default.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
addFormats(ajv);
ajv.addKeyword('x-weave');

const compiled = new WeakMap<Schema, ValidateFunction>();

function validatorOf(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * The errors of `value` against `schema` (empty when it conforms). Exact-JSON values (Maps, raw
 * text, number text) are written as JSON first: what is validated is what goes on the wire.
 */
export function schemaErrors(schema: Schema, value: unknown): string[] {
  const text = stringify(value as JsonInput);
  const validate = validatorOf(schema);
  if (validate(JSON.parse(text))) {
    return [];
  }
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}
