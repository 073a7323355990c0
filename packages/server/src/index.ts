/**
 * @weave/server: the Weave server (Pulse task queue, Weave workflow engine runtime, Orbit result
 * streams) over MariaDB/MySQL or SQLite, with its HTTP API and the `weave` CLI.
 */
export { Server } from './server.js';
export type { ServerOptions, BackgroundLoop } from './server.js';
export { openDatabase } from './store/database.js';
export type { Database } from './store/database.js';
export { migrate } from './store/migrate.js';
export { withTx } from './store/with-tx.js';
export type { Tx } from './store/with-tx.js';
export { bootstrap } from './cli/bootstrap.js';
export { WeaveError } from './errors.js';
export { runCli } from './cli/main.js';
/** Orbit's append step, exported for `bench/orbit.ts` (not a public extension point). */
export { appendResult } from './orbit/append-result.js';
export type { ResultEvent } from './orbit/append-result.js';
/** MariaDB statement text, exported for `bench/statement-text.ts` (not an extension point). */
export { formatQuery, packetParameters } from './store/statement-text.js';
export type { Statement } from './store/statement-text.js';
