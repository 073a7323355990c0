/**
 * Creates check "does the name exist" and then insert. On MariaDB the check takes no lock, so two
 * concurrent creates of one name can both pass it; the unique index then refuses the second
 * insert. `insertUnique` turns that refusal into the same answer the check gives, thrown inside
 * the transaction so `withTx` rolls the whole request back (issue 10, item 6).
 */
import { alreadyExists } from '../errors.js';
import type { Tx } from './with-tx.js';

/** Test seam (STYLE.md §8): runs between a create's existence check and its insert. */
export interface ExistenceCheckHooks {
  afterExistenceCheck?(): Promise<void>;
}

/** Runs `insert`; a unique violation becomes `already_exists` with the message `taken`. */
export async function insertUnique<T>(tx: Tx, taken: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (e: unknown) {
    if (!tx.dialect.isUniqueViolation(e)) {
      throw e;
    }
    throw alreadyExists(taken, e);
  }
}
