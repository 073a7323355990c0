/**
 * Every bound the engine enforces, with its unit and reason. Storage and the SDK read these
 * rather than repeating the numbers.
 */
export const LIMITS = {
  /** Static nodes of one definition, all nesting levels counted (seed 002 §3, A3.1). */
  maxSteps: 128,
  /** Decisions per `plan` call: the change budget of one round (seed 002 §3, A3.1). */
  maxDecisionsPerRound: 32,
  /** Definition source in UTF-8 bytes; generous for 128 nodes, small enough to keep in one row. */
  maxDefinitionBytes: 1024 * 1024,
  /** Instance input in UTF-8 bytes of its compact JSON text (seed 002 §4, A4.1). */
  maxInstanceInputBytes: 256 * 1024,
  /** A TASK or POLL task input after resolution: the Pulse submit bound (E3.6). */
  maxTaskInputBytes: 256 * 1024,
  /** Any other construction result (root output mapping) while it is being built (E3.13). */
  maxConstructionBytes: 256 * 1024,
  /** A combined BRANCH/PARALLEL output; fits the 512 KiB inbox snapshot with room to spare. */
  maxCompositeOutputBytes: 256 * 1024,
  /** Signal correlation key in UTF-8 bytes, non-empty (seed 002 §4, A4.4). */
  maxCorrelationBytes: 512,
  /** Task trace key and resource key in UTF-8 bytes (they are indexed columns in Pulse). */
  maxTaskKeyBytes: 255,
  /** Longest duration anywhere in a definition: 365 days in milliseconds. */
  maxDurationMs: 365 * 24 * 60 * 60 * 1000,
  /** Retry attempts of one TASK (Pulse freezes the policy at submit). */
  maxAttempts: 100,
  /** Query rounds of one POLL. */
  maxPollRounds: 10_000,
  /** Signal payload version. */
  maxPayloadVersion: 1_000_000,
} as const;

/** Instance timeout when the definition names none: the longest allowed (like Step Functions' year). */
export const DEFAULT_INSTANCE_TIMEOUT_MS = LIMITS.maxDurationMs;

/** Queue, workflow and signal names (API.md conventions). */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

/** Step ids and PARALLEL branch names: lower-case identifiers, so a reference can name them. */
export const ID_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

/** Id of the hidden root step that storage keeps per instance; never definable (`$` is not allowed). */
export const ROOT_STEP_ID = '$root';
