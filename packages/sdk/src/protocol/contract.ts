/**
 * A route of the HTTP API as data: method, path, scope, the body it takes, the answers it gives
 * and the error codes it can send. The server registers one handler per contract, the SDK's
 * methods are typed by it, and the OpenAPI document is built from the list of contracts.
 */
import type { ErrorCode } from './errors.js';
import type { Infer, Schema } from './schema.js';
import type { Scope } from './scopes.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteContract {
  /** `operationId` in the OpenAPI document (`createQueue`). */
  readonly id: string;
  readonly method: HttpMethod;
  /** Path below `/v1/namespaces/{ns}`, OpenAPI style (`/queues/{queue}`). */
  readonly path: string;
  /** The scope a credential needs (its own namespace only); of a list, any one of them. */
  readonly scope: Scope | readonly Scope[];
  /** OpenAPI tag: the part of the API (`Administration`, `Tasks`, `Workers`, …). */
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /**
   * Set for writes that take `Idempotency-Key`: the operation name frozen in the receipt
   * (`queue.create`), so the same key on another operation is another request.
   */
  readonly operation?: string;
  /** The request body; absent when the route takes none. */
  readonly body?: Schema;
  /** Whether the body may be left out (routes whose every member is optional). */
  readonly bodyOptional?: boolean;
  /** Query parameters, each a string on the wire. */
  readonly query?: Readonly<Record<string, Schema>>;
  /** The success answer: its status and body. */
  readonly status: 200 | 201 | 202;
  /** Other success statuses with the same answer, and when (`200` for an existing object). */
  readonly otherStatuses?: Readonly<Partial<Record<200 | 201 | 202, string>>>;
  readonly answer: Schema;
  /** Error codes the route itself can answer with (the ones every route can give are added). */
  readonly errors: readonly ErrorCode[];
  /** Long-polls up to `wait_ms`: never holds a transaction while waiting. */
  readonly longPoll?: boolean;
  /** An example request body and answer for the document. */
  readonly example?: { readonly body?: unknown; readonly answer?: unknown };
}

/** Keeps the literal types of a contract (its schemas' types) for `BodyOf` and `AnswerOf`. */
export function defineRoute<const C extends RouteContract>(contract: C): C {
  return contract;
}

/** The request body type of a contract (`undefined` for routes without one). */
export type BodyOf<C extends RouteContract> = C['body'] extends Schema
  ? Infer<C['body']>
  : undefined;

/** The success answer's body type of a contract. */
export type AnswerOf<C extends RouteContract> = Infer<C['answer']>;

/** The query parameters of a contract, as the SDK takes them. */
export type QueryOf<C extends RouteContract> =
  C['query'] extends Readonly<Record<string, Schema>>
    ? { readonly [K in keyof C['query']]?: Infer<C['query'][K]> }
    : Record<string, never>;
