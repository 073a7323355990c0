/**
 * `/console/` until the web console (packages/console, issue 13 §3) is built: a small page that
 * says so and points at the API, instead of a 404. The console's static serving replaces this
 * file. `/console` (no slash) redirects so relative asset URLs resolve under `/console/`.
 */
import type { FastifyInstance } from 'fastify';

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Weave console</title></head>
<body>
<h1>Weave</h1>
<p>The web console is not built yet. The server is running: the HTTP API is under
<code>/v1</code> (<a href="/v1/openapi.json">OpenAPI document</a>), health at
<a href="/healthz">/healthz</a> and metrics at <a href="/metrics">/metrics</a>.</p>
</body>
</html>
`;

export function registerConsolePlaceholder(app: FastifyInstance): void {
  app.get('/console', (_req, reply) => reply.redirect('/console/', 302));
  app.get('/console/', (_req, reply) =>
    reply.code(200).type('text/html; charset=utf-8').send(PAGE),
  );
}
