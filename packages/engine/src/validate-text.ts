import type { JsonValue } from '@weave/json';
import { parse } from '@weave/json';
import { LIMITS } from './limits.js';
import type { Program } from './program.js';
import { compile } from './program.js';
import type { Problem, ProblemCode } from './problems.js';

/**
 * `weave workflows validate FILE`: the definition text in, every problem out, as values.
 * A JSON syntax error is one problem with its line and column; otherwise the compile problems.
 */
export type TextValidation =
  | { readonly ok: true; readonly program: Program }
  | { readonly ok: false; readonly problems: readonly Problem[] };

export function validateDefinitionText(text: string): TextValidation {
  // The limit is on compact JSON (compile checks it, as publishing does): indentation is free.
  const parsed = parseText(text, LIMITS.maxDefinitionBytes * 16);
  if (!parsed.ok) {
    return parsed;
  }
  return compile(parsed.value);
}

export type TextParse =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly problems: readonly Problem[] };

/** Exact-JSON parse that reports a syntax error as a problem instead of throwing. */
export function parseText(text: string, maxBytes: number): TextParse {
  try {
    return { ok: true, value: parse(text, { maxBytes }) };
  } catch (error: unknown) {
    return { ok: false, problems: [toProblem(error)] };
  }
}

function toProblem(error: unknown): Problem {
  const { code, message, details } = error as {
    code?: unknown;
    message?: unknown;
    details?: { path?: unknown; line?: unknown; column?: unknown };
  };
  const known: readonly ProblemCode[] = [
    'malformed_json',
    'duplicate_key',
    'forbidden_key',
    'too_deep',
    'payload_too_large',
  ];
  if (typeof code !== 'string' || !(known as readonly string[]).includes(code)) {
    throw error;
  }
  const where =
    typeof details?.line === 'number'
      ? ` (line ${details.line}, column ${String(details.column)})`
      : '';
  const path = typeof details?.path === 'string' ? details.path : '$';
  return { path, code: code as ProblemCode, message: `${String(message)}${where}` };
}

/** One line per problem: `$.steps[0].queue: … (invalid_name)`. */
export function formatProblems(problems: readonly Problem[]): string[] {
  return problems.map((problem) => `${problem.path}: ${problem.message} (${problem.code})`);
}
