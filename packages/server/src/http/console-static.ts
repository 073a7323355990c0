/**
 * The web console's static files under `/console/` (docs/console.md "How it is served"). The
 * console is built by Vite from packages/console into `packages/server/build/console/`, which
 * ships with this package (`files`). Hashed assets (`assets/…`) are cached for a year; every
 * other file, `index.html` included, is revalidated. A path without a file extension that names
 * no file is a client-side route and gets `index.html`. Paths are resolved inside the folder
 * only: `..`, encoded slashes, backslashes and NUL are refused before the file system is asked.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { toJsonText } from './json-text.js';

/** Where the build puts the console, next to this package's compiled sources. */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

/** Vite writes content-hashed names below `assets/`: a changed file gets a new name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Weave console</title></head>
<body>
<h1>Weave</h1>
<p>The web console is not built in this checkout: run <code>npm run build</code> at the
repository root. The server is running: the HTTP API is under <code>/v1</code>
(<a href="/v1/openapi.json">OpenAPI document</a>), health at <a href="/healthz">/healthz</a>
and metrics at <a href="/metrics">/metrics</a>.</p>
</body>
</html>
`;

export function registerConsole(app: FastifyInstance, dir: string = DEFAULT_CONSOLE_DIR): void {
  const root = resolve(dir);
  app.get('/console', (_req, reply) => reply.redirect('/console/', 302));
  app.get('/console/*', async (req, reply) => {
    const rest = (req.params as { '*': string })['*'];
    const relative = toRelativePath(rest);
    if (relative === undefined) {
      return notFound(reply, rest);
    }
    const file = await findFile(root, relative);
    if (file !== undefined) {
      return sendFile(reply, file, relative.startsWith('assets/') ? IMMUTABLE : REVALIDATE);
    }
    if (extname(relative) !== '') {
      return notFound(reply, rest);
    }
    const index = await findFile(root, 'index.html');
    if (index === undefined) {
      return reply
        .code(200)
        .header('cache-control', REVALIDATE)
        .type(CONTENT_TYPES['.html']!)
        .send(NOT_BUILT);
    }
    return sendFile(reply, index, REVALIDATE);
  });
}

/**
 * The request path below `/console/` as a safe relative path (`''` → `index.html`), or
 * undefined when it could leave the folder. Fastify has decoded `%2e`; an encoded slash or
 * backslash decodes to a separator we refuse too.
 */
export function toRelativePath(rest: string): string | undefined {
  const path = rest.split('?')[0] ?? '';
  if (path === '') {
    return 'index.html';
  }
  if (path.includes('\0') || path.includes('\\') || path.startsWith('/')) {
    return undefined;
  }
  const segments = path.split('/');
  if (segments.some((s) => s === '..' || s === '.' || s === '')) {
    return undefined;
  }
  return path;
}

async function findFile(root: string, relative: string): Promise<string | undefined> {
  const file = join(root, relative);
  // Belt and braces after toRelativePath: the joined path must stay below the root.
  if (!file.startsWith(root + sep)) {
    return undefined;
  }
  try {
    return (await stat(file)).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

async function sendFile(reply: FastifyReply, file: string, cacheControl: string) {
  const body = await readFile(file);
  return reply
    .code(200)
    .header('cache-control', cacheControl)
    .header('x-content-type-options', 'nosniff')
    .type(CONTENT_TYPES[extname(file)] ?? 'application/octet-stream')
    .send(body);
}

function notFound(reply: FastifyReply, rest: string) {
  const text = toJsonText({
    error: { code: 'not_found', message: `no console file /console/${rest}` },
  });
  return reply.code(404).type('application/json; charset=utf-8').send(text);
}
