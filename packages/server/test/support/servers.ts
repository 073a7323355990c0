/**
 * A real server on port 0 over a fresh test database, with a namespace and an admin key, driven
 * through the SDK client (STYLE.md §10).
 */
import { Writable } from 'node:stream';
import { WeaveClient } from '@weave/sdk';
import type { Scope } from '@weave/sdk';
import { bootstrap } from '../../src/cli/bootstrap.js';
import { Server } from '../../src/server.js';
import type { ServerOptions } from '../../src/server.js';
import type { DialectName } from '../../src/store/dialect.js';
import { checkedRoutes } from './checked-routes.js';
import { createEmptyDatabase } from './databases.js';
import type { TestDatabase } from './databases.js';
import { track } from './leaks.js';

export interface TestServer {
  readonly server: Server;
  readonly db: TestDatabase;
  /** Admin client of namespace `ns`. */
  readonly admin: WeaveClient;
  readonly adminKey: string;
  /** Every log line the server wrote. */
  readonly logs: string[];
  clientFor(namespace: string, apiKey: string): WeaveClient;
  /** A key with the given scopes in a namespace (created if missing). */
  keyWith(
    namespace: string,
    scopes: readonly Scope[],
    options?: { application?: string; queues?: readonly string[] },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startTestServer(
  dialect: DialectName,
  options: Partial<Omit<ServerOptions, 'db' | 'port' | 'logLevel' | 'logStream'>> = {},
): Promise<TestServer> {
  const db = await createEmptyDatabase(dialect);
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const server = await startServer({
    db: db.url,
    port: 0,
    logLevel: 'debug',
    logStream,
    routes: checkedRoutes(),
    ...options,
  });
  const keyWith: TestServer['keyWith'] = async (namespace, scopes, extra = {}) =>
    (
      await bootstrap(server.database, {
        namespace,
        ...(extra.application === undefined ? {} : { application: extra.application }),
        queues: extra.queues ?? [],
        scopes,
        credentialName: 'test',
      })
    ).key;
  const adminKey = await keyWith('ns', ['admin'], { application: 'app', queues: ['q1'] });
  const clientFor = (namespace: string, apiKey: string) =>
    new WeaveClient({ url: server.url, namespace, apiKey });
  return {
    server,
    db,
    admin: clientFor('ns', adminKey),
    adminKey,
    logs,
    clientFor,
    keyWith,
    async close() {
      await server.stop();
      await db.drop();
    },
  };
}

/**
 * `Server.start(options)`, checked by the leak check: `stop()` must have been called (e.g. a
 * second node on a test server's database).
 */
export async function startServer(options: ServerOptions): Promise<Server> {
  const server = await Server.start(options);
  const stop = server.stop.bind(server);
  const tracked = track('server', server.url, stop);
  server.stop = async () => {
    await stop();
    tracked.untrack();
  };
  return server;
}
