/**
 * The client's HTTP exchange on Node (installed by node/index.ts): `node:http` / `node:https`
 * with a keep-alive agent per protocol. Measured in the burn-down bench (docs/benchmarks.md,
 * run 7): undici's `fetch` and its web streams were ~40 % of a worker process's CPU, and the SDK
 * `Worker` drained 8–12 % faster over this exchange.
 *
 * A kept-alive socket may be closed by the server just as a request is written on it (the
 * server's idle timeout): the request then fails with ECONNRESET or EPIPE before any answer.
 * Such a request was never read by the server, so it is sent once more on a new socket
 * (Node's documented `request.reusedSocket` pattern); every other error is the caller's.
 */
import http from 'node:http';
import https from 'node:https';
import type { HttpAnswer, HttpExchange, HttpRequest } from '../http-exchange.js';

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
} as const;

export function nodeExchange(): HttpExchange {
  return async (url, request) => {
    try {
      return await exchangeOnce(url, request);
    } catch (e: unknown) {
      if (e instanceof StaleSocketError) {
        return exchangeOnce(url, request);
      }
      throw e;
    }
  };
}

class StaleSocketError extends Error {}

function exchangeOnce(url: URL, request: HttpRequest): Promise<HttpAnswer> {
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') {
    return Promise.reject(new TypeError(`unsupported URL protocol ${url.protocol}`));
  }
  const send = secure ? https.request : http.request;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = send(
      url,
      {
        method: request.method,
        headers: request.headers,
        agent: agents[secure ? 'https:' : 'http:'],
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          let headers: Headers | undefined;
          resolve({
            status: res.statusCode ?? 0,
            // Made when read (an error answer, a raw request): a `Headers` costs more to fill
            // than the rest of a worker call's answer.
            get headers() {
              headers ??= toHeaders(res.headers);
              return headers;
            },
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      const stale =
        !answered && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
      reject(stale ? new StaleSocketError(e.message, { cause: e }) : e);
    });
    req.end(request.body);
  });
}

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) {
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
  }
  return headers;
}
