/**
 * A running Weave server: database (migrated at start), HTTP listener, background loops.
 * `stop()` drains in-flight requests, stops the loops, then closes the pool.
 */
import type { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildHttpApp } from './http/app.js';
import type { Database } from './store/database.js';
import { openDatabase } from './store/database.js';
import { migrate } from './store/migrate.js';

export interface ServerOptions {
  /** `mysql://…` or a SQLite path. */
  readonly db: string;
  readonly port?: number;
  readonly host?: string;
  readonly logLevel?: string | false;
  readonly logStream?: Writable;
  readonly bodyLimitBytes?: number;
}

/** A background loop (runners arrive with later issues); stopped before the pool closes. */
export interface BackgroundLoop {
  stop(): Promise<void>;
}

export class Server {
  readonly #app: FastifyInstance;
  readonly #database: Database;
  readonly #loops: BackgroundLoop[] = [];
  #url = '';
  #stopping: Promise<void> | undefined;

  private constructor(app: FastifyInstance, database: Database) {
    this.#app = app;
    this.#database = database;
  }

  static async start(options: ServerOptions): Promise<Server> {
    const database = openDatabase(options.db);
    try {
      await migrate(database);
      const app = buildHttpApp({
        database,
        ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
        ...(options.logStream === undefined ? {} : { logStream: options.logStream }),
        ...(options.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: options.bodyLimitBytes }),
      });
      const server = new Server(app, database);
      const address = await app.listen({
        port: options.port ?? 8420,
        host: options.host ?? '127.0.0.1',
      });
      server.#url = address.replace('[::1]', 'localhost');
      return server;
    } catch (e: unknown) {
      await database.close();
      throw e;
    }
  }

  /** Base URL, e.g. `http://127.0.0.1:8420` (the real port when started on port 0). */
  get url(): string {
    return this.#url;
  }

  get database(): Database {
    return this.#database;
  }

  addLoop(loop: BackgroundLoop): void {
    this.#loops.push(loop);
  }

  /** Idempotent: a second call waits for the first. */
  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    await this.#app.close();
    await Promise.all(this.#loops.map((loop) => loop.stop()));
    await this.#database.close();
  }
}
