/**
 * The HTTP server (Fastify 5): `/v1` routes from the route table, exact-JSON bodies, one error
 * shape, request ids, the operational routes (operational-routes.ts) and the OpenAPI document.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse } from '@weave/json';
import { toJsonText } from './json-text.js';
import type { JsonBody } from './json-text.js';
import type { JsonValue } from '@weave/json';
import { WeaveError } from '../errors.js';
import type { Database } from '../store/with-tx.js';
import { toErrorResponse } from './error-response.js';
import { bodyLimits, readBody } from './read-body.js';
import type { BodyOutcome } from './read-body.js';
import { buildOpenApi } from './openapi.js';
import type { Route, RouteSettings } from './route.js';
import { DEFAULT_MAX_ACTIVE_INSTANCES } from '../weave/instance/admit-instance.js';
import { DEFAULT_MAX_SIGNAL_TTL_MS } from '../weave/signals/send-signal.js';
import { allRoutes } from './routes/index.js';
import { runRoute } from './run-route.js';
import { registerOperations } from './operational-routes.js';
import type { HttpMetrics } from './operational-routes.js';
import type { RouteEnvironment } from './run-route.js';
import { TaskNotifier } from '../pulse/task-notifier.js';

export interface HttpOptions {
  readonly database: Database;
  /** Whether the database answers (`GET /readyz`); the server passes its store check. */
  readonly ready: () => Promise<boolean>;
  /**
   * Largest accepted request body in bytes (default 2 MiB; payload limits are checked later).
   * Up to 4× more is read and discarded so the 413 reaches the client (read-body.ts).
   */
  readonly bodyLimitBytes?: number;
  /** pino level, or false for no logs. */
  readonly logLevel?: string | false;
  /** Where logs go (default stdout); tests capture them here. */
  readonly logStream?: Writable;
  /** The route table (default: every route of the API); tests may pass their own. */
  readonly routes?: readonly Route[];
  /** Settings the routes read (default: seed 002's 10,000 active instances per namespace). */
  readonly settings?: Partial<RouteSettings>;
  /** Wakes local long-polling claims (shared with the lease sweeper); default: a new one. */
  readonly notifier?: TaskNotifier;
  /** `GET /metrics` and request timing; without it there is no `/metrics`. */
  readonly metrics?: HttpMetrics;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  readonly metricsToken?: string;
}

export const DEFAULT_BODY_LIMIT_BYTES = 2 * 1024 * 1024;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export function buildHttpApp(options: HttpOptions): FastifyInstance {
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const app = Fastify({
    bodyLimit: bodyLimitBytes,
    logger: loggerOptions(options),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
  });
  app.removeAllContentTypeParsers();
  // Requests whose body was refused as too large: their 413 closes the connection.
  const refusedBodies = new WeakSet<FastifyRequest>();
  const limits = bodyLimits(bodyLimitBytes);
  app.addContentTypeParser('application/json', (req, payload, done) => {
    readBody(payload, contentLengthOf(req), limits, (outcome) => {
      if (outcome.kind === 'too_large') {
        refusedBodies.add(req);
      }
      const body = toBody(outcome, bodyLimitBytes);
      if (body instanceof Error) {
        done(body, undefined);
      } else {
        done(null, body);
      }
    });
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (refusedBodies.has(req)) {
      reply.header('connection', 'close');
    }
  });
  app.setErrorHandler((error, req, reply) => sendError(reply, req, error, bodyLimitBytes));
  app.setNotFoundHandler((req, reply) =>
    sendError(
      reply,
      req,
      new WeaveError('not_found', `no route ${req.method} ${req.url.split('?')[0] ?? ''}`),
      bodyLimitBytes,
    ),
  );
  registerOperations(app, {
    ready: options.ready,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.metricsToken === undefined ? {} : { metricsToken: options.metricsToken }),
  });
  const routes = options.routes ?? allRoutes;
  registerRoutes(app, options, routes);
  const openApi = toJsonText(buildOpenApi(routes.map((r) => r.contract)));
  app.get('/v1/openapi.json', (_req, reply) => sendJson(reply, 200, openApi));
  return app;
}

function loggerOptions(options: HttpOptions) {
  if (options.logLevel === false) {
    return false;
  }
  return {
    level: options.logLevel ?? 'info',
    ...(options.logStream === undefined ? {} : { stream: options.logStream }),
    // Keys and payloads never reach the logs: only method, url, ids and statuses are logged.
    redact: ['req.headers.authorization', 'req.headers["idempotency-key"]'],
  };
}

function contentLengthOf(req: FastifyRequest): number | undefined {
  const given = req.headers['content-length'];
  const n = Number(given);
  return given !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

/** A read body → its JSON value, or the error to answer with. */
function toBody(outcome: BodyOutcome, limit: number): JsonValue | Error {
  switch (outcome.kind) {
    case 'body':
      try {
        return parse(outcome.body);
      } catch (e: unknown) {
        return toBodyError(e);
      }
    case 'too_large':
      return new WeaveError(
        'payload_too_large',
        outcome.drained
          ? `the request body is ${outcome.receivedBytes} bytes, over the limit of ${limit}`
          : `the request body is over the limit of ${limit} bytes`,
        { details: { limit } },
      );
    case 'length_mismatch':
      return new WeaveError(
        'invalid_argument',
        `Content-Length does not match the body (got ${outcome.receivedBytes} bytes)`,
      );
    case 'failed':
      return outcome.error;
  }
}

/** Branches on the JSON error's code, not on `instanceof` across packages (STYLE.md §5). */
function toBodyError(e: unknown): WeaveError {
  const error =
    e instanceof Error ? (e as Error & { code?: unknown; details?: object }) : undefined;
  if (error !== undefined && typeof error.code === 'string') {
    const code = error.code === 'payload_too_large' ? 'payload_too_large' : 'malformed_json';
    return new WeaveError(code, `the body is not valid JSON: ${error.message}`, {
      details: { ...error.details },
    });
  }
  return new WeaveError('malformed_json', 'the body is not valid JSON', { cause: e });
}

function sendJson(reply: FastifyReply, status: number, body: JsonBody): FastifyReply {
  reply.code(status).type('application/json; charset=utf-8');
  if (typeof body === 'string') {
    return reply.send(body);
  }
  // Pieces (json-text.ts): each written as it is, never joined into one large string.
  let bytes = 0;
  for (const piece of body) {
    bytes += Buffer.byteLength(piece);
  }
  return reply.header('content-length', bytes).send(Readable.from(body, { objectMode: false }));
}

function sendError(
  reply: FastifyReply,
  req: FastifyRequest,
  error: unknown,
  bodyLimitBytes: number,
) {
  const response = toErrorResponse(error, { bodyLimitBytes });
  if (response.status >= 500) {
    req.log.error({ err: error }, 'request failed');
  }
  return sendJson(reply, response.status, toJsonText(response.body));
}

function registerRoutes(app: FastifyInstance, options: HttpOptions, routes: readonly Route[]) {
  const env = {
    database: options.database,
    notifier: options.notifier ?? new TaskNotifier(),
    settings: {
      maxActiveInstances: DEFAULT_MAX_ACTIVE_INSTANCES,
      maxSignalTtlMs: DEFAULT_MAX_SIGNAL_TTL_MS,
      ...options.settings,
    },
  };
  for (const route of routes) {
    registerRoute(app, env, route);
  }
}

function registerRoute(app: FastifyInstance, env: RouteEnvironment, route: Route): void {
  app.route({
    method: route.contract.method,
    url: `/v1/namespaces/:ns${route.contract.path.replace(/\{([a-z_]+)\}/g, ':$1')}`,
    handler: async (req, reply) => {
      const header = (name: string) => {
        const v = req.headers[name];
        return typeof v === 'string' ? v : undefined;
      };
      const disconnected = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) {
          disconnected.abort();
        }
      });
      const out = await runRoute(env, route, {
        signal: disconnected.signal,
        params: req.params as Record<string, string>,
        query: req.query as Record<string, string | undefined>,
        body: req.body as JsonValue | undefined,
        requestId: req.id,
        authorization: header('authorization'),
        idempotencyKey: header('idempotency-key'),
      });
      if (out.replayed) {
        reply.header('idempotent-replayed', 'true');
      }
      return sendJson(reply, out.status, out.body);
    },
  });
}
