/**
 * One call by its route contract (`@weave/sdk/protocol`): method and path come from the
 * contract, so the client cannot drift from the server's routes, and the body and answer are
 * typed by the contract's schemas.
 */
import type { JsonInput } from '@weave/json';
import type { AnswerOf, BodyOf, QueryOf, RouteContract } from './protocol/index.js';
import type { Requester, RequestOptions } from './transport.js';

export interface CallArgs<C extends RouteContract> {
  /** Values of the path's `{name}` parameters. */
  readonly params?: Readonly<Record<string, string>>;
  readonly body?: BodyOf<C>;
  readonly query?: QueryOf<C>;
  readonly idempotencyKey?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

export function pathOf(contract: RouteContract, params: Readonly<Record<string, string>> = {}) {
  return contract.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) {
      throw new TypeError(`${contract.id}: the path parameter ${name} is missing`);
    }
    return encodeURIComponent(value);
  });
}

export function callRoute<C extends RouteContract>(
  request: Requester,
  contract: C,
  args: CallArgs<C> = {},
): Promise<AnswerOf<C>> {
  const options: RequestOptions = {
    ...(args.body === undefined ? {} : { body: args.body as JsonInput }),
    ...(args.query === undefined
      ? {}
      : { query: args.query as NonNullable<RequestOptions['query']> }),
    ...(args.idempotencyKey === undefined ? {} : { idempotencyKey: args.idempotencyKey }),
    ...(args.signal === undefined ? {} : { signal: args.signal }),
  };
  return request<AnswerOf<C>>(contract.method, pathOf(contract, args.params), options);
}
