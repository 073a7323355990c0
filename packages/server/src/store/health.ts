/** Readiness: the database answers a trivial query within a short time. */
import { sql } from 'kysely';
import type { Database } from './database.js';

const READY_TIMEOUT_MS = 2000;

export async function checkReady(database: Database): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
  });
  try {
    const probe = sql`SELECT 1 AS ok`.execute(database.kysely).then(
      () => true,
      () => false,
    );
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
