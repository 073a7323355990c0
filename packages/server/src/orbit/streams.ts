/**
 * Orbit streams (对外结果流): a named, ordered, retained log of outcomes, owned by an
 * application. Every application has a default stream of its own name, created with it; other
 * streams are created by an admin. Only the owning application's tasks and instances write to a
 * stream (a submit may name one of its application's streams).
 */
import type { Selectable } from 'kysely';
import { checkName } from '../auth/namespaces.js';
import { WeaveError, alreadyExists, notFound } from '../errors.js';
import type { OrbitStreamsTable } from '../store/schema.js';
import type { Micros } from '../store/values.js';
import { toBool, toId, toMicros, toMicrosOrNull } from '../store/values.js';
import type { ExistenceCheckHooks } from '../store/unique-insert.js';
import { insertUnique } from '../store/unique-insert.js';
import type { Tx } from '../store/with-tx.js';
import type { Page } from '../store/pages.js';
import { readPage } from '../store/pages.js';

/** Default retention of a stream: events are kept seven days. */
export const DEFAULT_RETENTION_MAX_AGE_US: Micros = 7n * 86_400_000_000n;

export interface Retention {
  /** Events older than this are removed; null = no age limit. */
  readonly maxAgeUs: Micros | null;
  /** At most this many events are kept; null = no count limit. */
  readonly maxEvents: bigint | null;
}

export interface Stream {
  readonly id: string;
  readonly namespaceId: string;
  readonly name: string;
  readonly applicationId: string;
  readonly applicationName: string;
  readonly isDefault: boolean;
  /** The seq the next event gets; the head is `nextSeq - 1`. */
  readonly nextSeq: bigint;
  /** The first seq still retained (`nextSeq` when the stream holds nothing). */
  readonly earliestSeq: bigint;
  readonly retention: Retention;
  readonly revision: bigint;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
}

type StreamRow = Selectable<OrbitStreamsTable> & { application_name: string };

function toStream(row: StreamRow): Stream {
  return {
    id: toId(row.id),
    namespaceId: toId(row.namespace_id),
    name: row.name,
    applicationId: toId(row.application_id),
    applicationName: row.application_name,
    isDefault: toBool(row.is_default),
    nextSeq: toMicros(row.next_seq),
    earliestSeq: toMicros(row.earliest_seq),
    retention: {
      maxAgeUs: toMicrosOrNull(row.retention_max_age_us),
      maxEvents: toMicrosOrNull(row.retention_max_events),
    },
    revision: toMicros(row.revision),
    createdAt: toMicros(row.created_at),
    updatedAt: toMicros(row.updated_at),
  };
}

function selectStreams(tx: Tx, namespaceId: string) {
  return tx.db
    .selectFrom('orbit_streams as s')
    .innerJoin('applications as a', 'a.id', 's.application_id')
    .selectAll('s')
    .select('a.name as application_name')
    .where('s.namespace_id', '=', namespaceId)
    .where('a.namespace_id', '=', namespaceId);
}

export interface StreamInput {
  readonly name: string;
  /** The owning application, already found in the namespace by the caller. */
  readonly applicationId: string;
  readonly retention: Retention;
  readonly hooks?: ExistenceCheckHooks;
}

export async function createStream(
  tx: Tx,
  namespaceId: string,
  input: StreamInput,
): Promise<Stream> {
  checkName('$.name', input.name);
  await insertStream(tx, namespaceId, {
    name: input.name,
    applicationId: input.applicationId,
    isDefault: false,
    retention: input.retention,
    ...(input.hooks === undefined ? {} : { hooks: input.hooks }),
  });
  return getStream(tx, namespaceId, input.name);
}

/** The default stream of a new application (same name); part of creating the application. */
export async function createDefaultStream(
  tx: Tx,
  namespaceId: string,
  application: { readonly id: string; readonly name: string },
): Promise<void> {
  await insertStream(tx, namespaceId, {
    name: application.name,
    applicationId: application.id,
    isDefault: true,
    retention: { maxAgeUs: DEFAULT_RETENTION_MAX_AGE_US, maxEvents: null },
  });
}

async function insertStream(
  tx: Tx,
  namespaceId: string,
  stream: {
    name: string;
    applicationId: string;
    isDefault: boolean;
    retention: Retention;
    hooks?: ExistenceCheckHooks;
  },
): Promise<void> {
  const taken = `a stream named ${stream.name} already exists`;
  const existing = await tx.db
    .selectFrom('orbit_streams')
    .select('id')
    .where('namespace_id', '=', namespaceId)
    .where('name', '=', stream.name)
    .executeTakeFirst();
  if (existing !== undefined) {
    throw alreadyExists(taken);
  }
  await stream.hooks?.afterExistenceCheck?.();
  const insert = tx.db.insertInto('orbit_streams').values({
    namespace_id: namespaceId,
    name: stream.name,
    application_id: stream.applicationId,
    is_default: stream.isDefault ? 1 : 0,
    retention_max_age_us: stream.retention.maxAgeUs,
    retention_max_events: stream.retention.maxEvents,
    created_at: tx.now,
    updated_at: tx.now,
  });
  await insertUnique(tx, taken, () => insert.execute());
}

export async function findStream(
  tx: Tx,
  namespaceId: string,
  name: string,
): Promise<Stream | undefined> {
  const row = await selectStreams(tx, namespaceId).where('s.name', '=', name).executeTakeFirst();
  return row && toStream(row);
}

export async function getStream(tx: Tx, namespaceId: string, name: string): Promise<Stream> {
  const stream = await findStream(tx, namespaceId, name);
  if (stream === undefined) {
    throw notFound(`stream ${name}`, { path: 'stream' });
  }
  return stream;
}

export async function getStreamById(tx: Tx, namespaceId: string, id: string): Promise<Stream> {
  const row = await selectStreams(tx, namespaceId).where('s.id', '=', id).executeTakeFirst();
  if (row === undefined) {
    throw new Error(`stream ${id} vanished`);
  }
  return toStream(row);
}

export async function listStreams(
  tx: Tx,
  namespaceId: string,
  page: { readonly afterId?: string | undefined; readonly size: number },
): Promise<Page<Stream>> {
  return readPage(selectStreams(tx, namespaceId), page, {
    column: 's.id',
    toItem: toStream,
    idOf: (s) => s.id,
  });
}

/**
 * The stream a submit names for its result: it must exist and belong to the task's application
 * ("a stream it has rights to"). Returns its id.
 */
export async function resolveResultStream(
  tx: Tx,
  namespaceId: string,
  applicationId: string,
  name: string,
): Promise<string> {
  const stream = await findStream(tx, namespaceId, name);
  if (stream === undefined) {
    throw notFound(`stream ${name}`, { path: '$.result_stream' });
  }
  if (stream.applicationId !== applicationId) {
    throw new WeaveError(
      'permission_denied',
      `stream ${name} belongs to another application than the queue`,
      { details: { path: '$.result_stream' } },
    );
  }
  return stream.id;
}
