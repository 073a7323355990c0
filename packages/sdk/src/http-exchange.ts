/**
 * One HTTP exchange as the client needs it: a request out, the status, headers and body text
 * back. On Node the package's `node` entry (node/index.ts) installs an exchange over `node:http`
 * with a keep-alive agent (node/http.ts); everywhere else, and whenever `ClientOptions.fetch` is
 * given, the exchange is that `fetch`.
 */
export interface HttpRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export type HttpExchange = (url: URL, request: HttpRequest) => Promise<HttpAnswer>;

/** The exchange over a `fetch` function. */
export function viaFetch(fetchImpl: typeof fetch): HttpExchange {
  return async (url, request) => {
    const response = await fetchImpl(url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
}

let platformExchange: HttpExchange | undefined;

/** Called once by the platform's entry point (node/index.ts). */
export function usePlatformExchange(exchange: HttpExchange): void {
  platformExchange = exchange;
}

/** The platform's exchange, else the global `fetch` (looked up at each call). */
export function defaultExchange(): HttpExchange {
  return platformExchange ?? viaFetch((input, init) => globalThis.fetch(input, init));
}
