/**
 * Whether this process's transactions leave their admissions to the commit
 * (`Tx.admitAtCommit`, pulse/admission.ts `boundAtCommit`). Such an admission that finds the quota
 * or a queue at its limit fails its whole transaction, which withTx runs again with the exact
 * admission: one transaction wasted per refusal. An application that runs at its limit would
 * waste one per round, so after a refusal every transaction of the process counts exactly for
 * `PAUSE_MS`; correctness does not depend on it (both ways admit under the same checks).
 *
 * The pause is measured on the process's monotonic clock: it decides only how a check is made,
 * never what a row says (time that the data depends on is the database's).
 */
import { performance } from 'node:perf_hooks';

/** How long after a refusal at commit admissions count exactly again. */
export const PAUSE_MS = 2_000;

export class AdmissionsAtCommit {
  #refusedAt = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;

  /** `now`: a monotonic clock in ms (test seam). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** No refusal at commit within the last `PAUSE_MS`. */
  get allowed(): boolean {
    return this.#now() - this.#refusedAt >= PAUSE_MS;
  }

  refused(): void {
    this.#refusedAt = this.#now();
  }
}
