/**
 * The history name of a consumed inbox row (runtime.md §4.5, signals.md §5): a task result is
 * `result.applied` / `result.stale_ignored` / `result.quarantined`, or `result.late` when its POLL's
 * final signal came first (E4.5); a signal is `signal.applied`, `signal.late` (never applied) or
 * `signal.quarantined`.
 */
import type { RowOutcome } from './settle-results.js';
import { FINAL_SIGNAL_FIRST } from './settle-results.js';
import { SIGNAL_RECEIVED } from '../signals/signal-snapshot.js';

export function rowHistoryType(rowType: string, outcome: RowOutcome | undefined): string {
  const prefix = rowType === SIGNAL_RECEIVED ? 'signal' : 'result';
  if (outcome?.kind === 'APPLIED') {
    return `${prefix}.applied`;
  }
  if (outcome?.kind === 'QUARANTINED') {
    return `${prefix}.quarantined`;
  }
  if (prefix === 'signal' || outcome?.reason === FINAL_SIGNAL_FIRST) {
    return `${prefix}.late`;
  }
  return 'result.stale_ignored';
}
