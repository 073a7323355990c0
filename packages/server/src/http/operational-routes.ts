/**
 * The routes outside `/v1/namespaces/{ns}` (API.md "Operations"): liveness, readiness, metrics,
 * and the console's entry. None takes an API key; `/metrics` takes the metrics token when the
 * server has one (docs/operations.md "Metrics").
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerConsole } from './console-static.js';
import { toJsonText } from './json-text.js';

/** What `/metrics` serves and what the request hook feeds (metrics/server-metrics.ts). */
export interface HttpMetrics {
  readonly contentType: string;
  render(): Promise<string>;
  observeRequest(sample: {
    readonly method: string;
    readonly route: string;
    readonly status: number;
    readonly seconds: number;
  }): void;
}

export interface OperationalOptions {
  readonly ready: () => Promise<boolean>;
  readonly metrics?: HttpMetrics;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  readonly metricsToken?: string;
}

/** Where `GET /` sends a browser; the console (packages/console) is served below it. */
export const CONSOLE_PATH = '/console/';

export function registerOperations(app: FastifyInstance, options: OperationalOptions): void {
  app.get('/healthz', (_req, reply) => sendJson(reply, 200, '{"status":"ok"}'));
  app.get('/readyz', async (_req, reply) => {
    const ready = await options.ready();
    return ready
      ? sendJson(reply, 200, '{"status":"ready"}')
      : sendJson(reply, 503, errorText('unavailable', 'the database is unreachable'));
  });
  // 302, not 308: browsers keep a permanent redirect, and `/` may mean something else later.
  app.get('/', (_req, reply) => reply.redirect(CONSOLE_PATH, 302));
  registerConsole(app);
  const metrics = options.metrics;
  if (metrics !== undefined) {
    registerMetrics(app, metrics, options.metricsToken);
  }
}

function registerMetrics(app: FastifyInstance, metrics: HttpMetrics, token: string | undefined) {
  app.addHook('onResponse', async (req, reply) => {
    metrics.observeRequest({
      method: req.method,
      route: routeTemplate(req),
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
  });
  const expected = token === undefined ? undefined : digest(`Bearer ${token}`);
  app.get('/metrics', async (req, reply) => {
    const given = req.headers.authorization;
    if (expected !== undefined && (given === undefined || !sameDigest(digest(given), expected))) {
      return sendJson(
        reply,
        401,
        errorText('unauthenticated', 'the metrics token is required (Authorization: Bearer …)'),
      );
    }
    const text = await metrics.render();
    return reply.code(200).type(metrics.contentType).send(text);
  });
}

/**
 * Fastify's route pattern written the way the route contracts and OpenAPI write it
 * (`:queue` → `{queue}`); requests that matched no route share one label, so a scanner's URLs
 * cannot grow the number of series.
 */
function routeTemplate(req: FastifyRequest): string {
  const url = req.routeOptions.url;
  return url === undefined ? 'unmatched' : url.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/** Equal-length digests compared in constant time: the token's length does not leak either. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function errorText(code: string, message: string): string {
  return toJsonText({ error: { code, message } });
}

function sendJson(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(text);
}
