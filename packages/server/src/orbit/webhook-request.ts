/**
 * One webhook POST, outside any transaction: connects only to a checked address
 * (webhook-targets.ts), follows no redirect, gives up after `timeoutMs` for the whole exchange,
 * and keeps nothing of the response but its status (the body is read and dropped, so a
 * keep-alive socket can be reused and no payload reaches the delivery log).
 */
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { toError } from '../errors.js';
import type { Resolver, TargetPolicy } from './webhook-targets.js';
import { checkedLookup, ipLiteral, refusalOf } from './webhook-targets.js';

export interface WebhookRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly policy: TargetPolicy;
  /** Aborts the request (shutdown). */
  readonly signal?: AbortSignal;
  /** Test seam: name resolution (default: the system resolver). */
  readonly resolver?: Resolver;
}

export type WebhookResponse =
  | { readonly kind: 'answered'; readonly status: number }
  | { readonly kind: 'failed'; readonly error: string };

export function postWebhook(req: WebhookRequest): Promise<WebhookResponse> {
  const url = new URL(req.url);
  const literal = ipLiteral(url.hostname);
  // A literal address never goes through `lookup`: check it here.
  const refusal = literal === undefined ? undefined : refusalOf(req.policy, literal, literal);
  if (refusal !== undefined) {
    return Promise.resolve({ kind: 'failed', error: `target refused: ${refusal}` });
  }
  const options: RequestOptions = {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(req.body, 'utf8')),
      'user-agent': 'weave-webhook/1',
      ...req.headers,
    },
    lookup: checkedLookup(req.policy, req.resolver),
    ...(req.signal === undefined ? {} : { signal: req.signal }),
  };
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (response: WebhookResponse) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(response);
      }
    };
    const client: ClientRequest = send(url, options, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      res.on('data', () => undefined);
      res.on('end', () => finish({ kind: 'answered', status }));
      res.on('error', (e) => finish(failure(e)));
      res.on('close', () => finish({ kind: 'answered', status }));
    });
    const timer = setTimeout(() => {
      client.destroy(new Error(`no answer within ${req.timeoutMs} ms`));
    }, req.timeoutMs);
    client.on('error', (e) => finish(failure(e)));
    client.end(req.body, 'utf8');
  });
}

function failure(e: unknown): WebhookResponse {
  const error = toError(e);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ETARGETREFUSED') {
    return { kind: 'failed', error: `target refused: ${error.message}` };
  }
  return {
    kind: 'failed',
    error: code === undefined ? error.message : `${code}: ${error.message}`,
  };
}
