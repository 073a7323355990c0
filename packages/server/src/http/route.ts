/**
 * A route is a row of a table (STYLE.md §4): method, path, scope, and a handler that parses,
 * calls a service inside the request's transaction, and returns the response. The same rows
 * generate the OpenAPI document.
 */
import type { JsonValue } from '@weave/json';
import type { Scope } from '@weave/sdk/protocol';
import type { Principal } from '../auth/principal.js';
import type { TaskNotifier } from '../pulse/task-notifier.js';
import type { Database } from '../store/database.js';
import type { Tx } from '../store/with-tx.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteContext {
  readonly tx: Tx;
  readonly principal: Principal;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  /** The parsed body (exact JSON), or undefined when none was sent. */
  readonly body: JsonValue | undefined;
  readonly requestId: string;
  /** Wakes local long-polling claims; call it from `tx.afterCommit`. */
  readonly notifier: TaskNotifier;
}

/**
 * For a route that must not hold one transaction for its whole run (the claim long-poll): the
 * request is authenticated in its own short transaction, then the handler runs its own short
 * transactions through services that take the database.
 */
export interface SessionContext extends Omit<RouteContext, 'tx'> {
  readonly database: Database;
  /** Aborted when the client goes away before the answer is sent. */
  readonly signal: AbortSignal;
}

export interface RouteResult {
  readonly status: number;
  /** Plain JS or exact-JSON values; written with @weave/json. */
  readonly body: unknown;
  /**
   * What an idempotent replay returns instead of `body` (e.g. without a key that is shown
   * once). Defaults to `body`.
   */
  readonly replayBody?: unknown;
}

export interface Route {
  readonly method: HttpMethod;
  /** Path below `/v1/namespaces/:ns`, Fastify style (`/queues/:queue`). */
  readonly path: string;
  readonly scope: Scope;
  readonly summary: string;
  /** Name frozen in idempotency receipts (`queue.create`); writes only. */
  readonly operation?: string;
  /** JSON Schema of the request body, for the OpenAPI document only. */
  readonly requestSchema?: Record<string, unknown>;
  /** Query parameters, for the OpenAPI document. */
  readonly queryParams?: readonly string[];
  /** The usual mode: runs inside the request's one transaction. */
  handle?(ctx: RouteContext): Promise<RouteResult>;
  /** Session mode (no idempotency receipt): see `SessionContext`. Exactly one of the two. */
  session?(ctx: SessionContext): Promise<RouteResult>;
}
