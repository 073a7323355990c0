/**
 * The engine's one error class. Compile problems are values (`compile` returns them); an
 * `EngineError` is thrown only when a caller hands the planner something it cannot continue from:
 * an inconsistent snapshot, a limit out of range, an unclassifiable POLL result (STYLE.md §5).
 * Callers branch on `code`, never on the message or on `instanceof` across packages.
 */
export type EngineErrorCode =
  | 'invalid_argument'
  | 'invalid_snapshot'
  | 'snapshot_type_mismatch'
  | 'snapshot_missing_step'
  | 'snapshot_unknown_step'
  | 'snapshot_invalid_status'
  | 'snapshot_unreachable_step'
  | 'snapshot_unsettled_children'
  | 'snapshot_forged_output'
  | 'snapshot_output_not_succeeded'
  | 'snapshot_output_missing'
  | 'snapshot_poll_not_succeeded'
  | 'invalid_transition'
  | 'recovery_not_allowed'
  | 'recovery_blocked'
  | 'recovery_invalid_input'
  | 'recovery_invalid_output'
  | 'poll_unknown_value'
  | 'poll_unknown_type';

/** `path` is a JSON path into the snapshot (`$.steps.reserve.status`) or the value concerned. */
export interface EngineErrorDetails {
  readonly path: string;
  readonly stepId?: string;
  readonly limit?: number;
}

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly details: EngineErrorDetails;

  constructor(
    code: EngineErrorCode,
    message: string,
    details: EngineErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EngineError';
    this.code = code;
    this.details = details;
  }
}
