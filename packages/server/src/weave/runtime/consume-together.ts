/**
 * Several instances' consumer rounds in one transaction (docs/design/hot-path.md §9): each
 * instance under its own savepoint, so one that throws is rolled back alone (its rows stay
 * pending, its hooks dropped) while the others commit together — one BEGIN, one clock read and
 * one COMMIT for the group. A deadlock or lock-wait timeout took the whole transaction: withTx
 * runs the group again. If the group fails as a whole otherwise, each instance runs again in a
 * transaction of its own, so one instance's failure is never another's.
 */
import type { Database } from '../../store/with-tx.js';
import { withTx } from '../../store/with-tx.js';
import { consumeInstance } from './consume-instance.js';
import type { InstanceRef } from './consume-instance.js';
import type { ProgramCache } from './program-cache.js';

export interface ConsumedTogether {
  /** Something was consumed or advanced (look again at once). */
  readonly worked: boolean;
  /** The instances whose round threw, rolled back; for the caller's back-off (recordFailure). */
  readonly failed: readonly { readonly ref: InstanceRef; readonly error: unknown }[];
}

export async function consumeTogether(
  database: Database,
  refs: readonly InstanceRef[],
  programs: ProgramCache,
  /** After the commit: the queues that got new tasks (wake their claims). */
  onQueues: (queueIds: readonly string[]) => void,
): Promise<ConsumedTogether> {
  try {
    return await withTx(database, async (tx) => {
      let worked = false;
      const failed: { ref: InstanceRef; error: unknown }[] = [];
      const queueIds: string[] = [];
      for (const ref of refs) {
        try {
          // Alone in its transaction, an instance needs no savepoint: a throw fails it whole.
          const consumed =
            refs.length === 1
              ? await consumeInstance(tx, ref, programs)
              : await tx.savepoint(() => consumeInstance(tx, ref, programs));
          worked ||= consumed.rows > 0 || consumed.advanced;
          queueIds.push(...consumed.queueIds);
        } catch (error: unknown) {
          if (refs.length === 1 || tx.dialect.retryableReason(error) !== undefined) {
            throw error;
          }
          failed.push({ ref, error });
        }
      }
      tx.afterCommit(() => onQueues(queueIds));
      return { worked, failed };
    });
  } catch (error: unknown) {
    if (refs.length === 1) {
      return { worked: false, failed: [{ ref: refs[0] as InstanceRef, error }] };
    }
    // Nothing of the group was written: each instance again, on its own.
    const alone: ConsumedTogether[] = [];
    for (const ref of refs) {
      alone.push(await consumeTogether(database, [ref], programs, onQueues));
    }
    return {
      worked: alone.some((a) => a.worked),
      failed: alone.flatMap((a) => a.failed),
    };
  }
}
