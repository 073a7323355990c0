/**
 * `--db` / `WEAVE_DB` values: `mysql://user:pass@host:port/db` (also `mariadb://`), or a SQLite
 * file path (optionally `sqlite:` prefixed), or `:memory:`. A MariaDB/MySQL server on the same
 * host can be reached over its Unix socket: `mysql://user@localhost/db?socket=/run/mysqld/mysqld.sock`
 * (then the host and port are not used).
 */
import { WeaveError } from '../errors.js';

export interface MysqlConfig {
  readonly kind: 'mysql';
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** The server's Unix socket (`?socket=`), used instead of host and port when set. */
  readonly socketPath?: string | undefined;
}

export interface SqliteConfig {
  readonly kind: 'sqlite';
  readonly path: string;
}

export type ConnectionConfig = MysqlConfig | SqliteConfig;

export function parseConnectionUrl(url: string): ConnectionConfig {
  if (/^(mysql|mariadb):\/\//.test(url)) {
    return parseMysqlUrl(url);
  }
  const path = url.startsWith('sqlite:')
    ? url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '')
    : url;
  if (path === '') {
    throw new WeaveError('invalid_argument', 'database path is empty', { details: { path: 'db' } });
  }
  return { kind: 'sqlite', path };
}

function parseMysqlUrl(text: string): MysqlConfig {
  let url: URL;
  try {
    url = new URL(text.replace(/^mariadb:/, 'mysql:'));
  } catch (e: unknown) {
    throw new WeaveError('invalid_argument', 'database URL is not a valid mysql:// URL', {
      details: { path: 'db' },
      cause: e,
    });
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database === '') {
    throw new WeaveError('invalid_argument', 'database URL names no database (mysql://host/DB)', {
      details: { path: 'db' },
    });
  }
  const socket = url.searchParams.get('socket');
  if (socket !== null && !socket.startsWith('/')) {
    throw new WeaveError('invalid_argument', 'database URL: socket must be an absolute path', {
      details: { path: 'db' },
    });
  }
  return {
    kind: 'mysql',
    host: url.hostname || '127.0.0.1',
    port: url.port === '' ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
    database,
    socketPath: socket ?? undefined,
  };
}

/** The mysql2 connection options of `config`: the socket when one is named, else host and port. */
export function mysqlConnectionOptions(config: MysqlConfig) {
  const { user, password, database } = config;
  return config.socketPath === undefined
    ? { host: config.host, port: config.port, user, password, database }
    : { socketPath: config.socketPath, user, password, database };
}

/** The URL with its password hidden, for logs. */
export function describeConnection(config: ConnectionConfig): string {
  return config.kind === 'sqlite'
    ? `sqlite:${config.path}`
    : config.socketPath === undefined
      ? `mysql://${config.user}@${config.host}:${config.port}/${config.database}`
      : `mysql://${config.user}@localhost/${config.database}?socket=${config.socketPath}`;
}
