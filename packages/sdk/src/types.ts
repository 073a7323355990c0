/** Wire types of the API's responses (snake_case, as sent). */
export interface Application {
  readonly name: string;
  readonly id: string;
  readonly disabled: boolean;
  readonly revision: string;
  readonly quota: { readonly max_active_tasks: number };
  readonly created_at: string;
  readonly updated_at: string;
}

export interface Queue {
  /** Tasks by status; present on `GET /queues/{q}` only. PENDING includes retry waits. */
  readonly counts?: Readonly<Record<Exclude<TaskStatus, 'RETRY_WAIT'>, number>>;
  readonly name: string;
  readonly id: string;
  readonly application: string;
  readonly capacity: number;
  readonly paused: boolean;
  readonly revision: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface Credential {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly string[];
  readonly queues: readonly string[] | null;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
  readonly created_at: string;
}

/** The key is present only in the first response, never in an idempotent replay. */
export interface CreatedCredential {
  readonly credential: Credential;
  readonly key?: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly next_page_token?: string;
}

/** Task states as the API shows them; `RETRY_WAIT` is a pending task waiting for its retry. */
export type TaskStatus =
  | 'PENDING'
  | 'RETRY_WAIT'
  | 'CLAIMED'
  | 'RUNNING'
  | 'SUCCEEDED'
  | 'FAILED'
  | 'CANCELLED'
  | 'NEEDS_REVIEW';

/** Retry policy, frozen on the task at submit. Durations are ISO 8601 (`"PT1S"`). */
export interface RetryPolicy {
  readonly max_attempts?: number;
  readonly initial_interval?: string;
  readonly backoff_coefficient?: number;
  readonly max_interval?: string;
  readonly non_retryable_codes?: readonly string[];
}

/** Body of `POST /queues/{q}/tasks`. `input` is any JSON value. */
export interface SubmitTaskInput {
  readonly input: unknown;
  readonly idempotent?: boolean;
  readonly priority?: number;
  /** ISO 8601 duration from submit; the deadline is the earlier of this and `deadline_at`. */
  readonly timeout?: string;
  /** RFC 3339 instant (database clock). */
  readonly deadline_at?: string;
  readonly attempt_timeout?: string;
  readonly retry?: RetryPolicy;
  readonly trace_key?: string;
  readonly resource_key?: string;
}

export interface Task {
  readonly id: string;
  readonly queue: string;
  readonly status: TaskStatus;
  readonly revision: string;
  readonly input: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: string; readonly message: string };
  readonly attempts: number;
  readonly effect_uncertain: boolean;
  readonly cancel_requested: boolean;
  readonly idempotent: boolean;
  readonly priority: number;
  readonly trace_key?: string;
  readonly resource_key?: string;
  readonly deadline_at: string;
  readonly available_at: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly finished_at?: string;
}

export interface TaskEvent {
  readonly id: string;
  readonly revision: string;
  readonly type: string;
  readonly status: string;
  readonly attempt_id?: string;
  readonly at: string;
  readonly details?: unknown;
}

/** A task handed to a worker by a claim; `permit` is shown only here. */
export interface ClaimedTask {
  readonly task_id: string;
  readonly attempt_id: string;
  readonly permit: string;
  readonly lease_expires_at: string;
  readonly deadline_at: string;
  readonly input: unknown;
  readonly attempt_number: number;
  readonly trace_key?: string;
  readonly resource_key?: string;
  readonly idempotent: boolean;
}

export interface ClaimRequest {
  readonly worker_id: string;
  /** 1–100 (default 1). */
  readonly max_tasks?: number;
  /** Long-poll up to 30 000 ms (default 0: answer at once). */
  readonly wait_ms?: number;
  /**
   * Start the claimed attempts in the claim's transaction (default false): no start call per
   * task. Only for a worker that runs them at once: if the answer is lost, the attempts are
   * started all the same and their effect counts as uncertain when the lease ends.
   */
  readonly start?: boolean;
}

/** The answer of start, complete and cancel. */
export interface TaskReceipt {
  readonly task_id: string;
  readonly attempt_id: string | null;
  readonly revision: string;
  readonly status: TaskStatus;
}

export interface HeartbeatAnswer {
  readonly lease_expires_at: string;
  readonly cancel_requested: boolean;
}

export type Completion =
  | { readonly outcome: 'succeeded'; readonly result?: unknown }
  | {
      readonly outcome: 'failed';
      readonly error: {
        readonly code: string;
        readonly message?: string;
        readonly retryable?: boolean;
      };
    }
  | {
      readonly outcome: 'needs_review';
      readonly error?: { readonly code: string; readonly message?: string };
    };

/** Body of `POST /tasks/{id}/review`. */
export type ReviewRequest =
  | { readonly action: 'succeed'; readonly output?: unknown; readonly reason: string }
  | {
      readonly action: 'fail';
      readonly error: { readonly code: string; readonly message?: string };
      readonly reason: string;
    }
  | { readonly action: 'retry'; readonly reason: string };

/** Body of `POST /queues/{q}/completions`. */
export interface BatchCompletionRequest {
  readonly completions: readonly (Completion & {
    readonly task_id: string;
    readonly attempt_id: string;
    readonly permit: string;
  })[];
  /** Claim the next tasks in the same transaction (`start` as in `ClaimRequest`). */
  readonly claim?: {
    readonly worker_id: string;
    readonly max_tasks?: number;
    readonly start?: boolean;
  };
}

export interface BatchCompletionAnswer {
  readonly receipts: readonly (TaskReceipt & { readonly index: number })[];
  readonly errors: readonly {
    readonly index: number;
    readonly error: { readonly code: string; readonly message: string; readonly details?: unknown };
  }[];
  readonly tasks: readonly ClaimedTask[];
}

/** What a schedule submits at each slot: the submit fields, without an absolute deadline. */
export type ScheduledTaskInput = Omit<SubmitTaskInput, 'deadline_at'>;

/** `POST /schedules`. `timezone` defaults to UTC, `overlap` to skip, `catch_up` to none. */
export interface CreateScheduleInput {
  readonly name: string;
  readonly queue: string;
  /** Five fields: minute hour day-of-month month day-of-week (names like MON, JAN allowed). */
  readonly cron: string;
  /** IANA zone, e.g. `Europe/Berlin`. */
  readonly timezone?: string;
  readonly task: ScheduledTaskInput;
  /** `skip`: no firing while the previous firing's task is not terminal. */
  readonly overlap?: 'skip' | 'allow';
  /** Slots missed while the server was down: none, only the most recent, or every one. */
  readonly catch_up?: 'none' | 'latest' | 'all';
}

export interface Schedule {
  readonly id: string;
  readonly name: string;
  readonly queue: string;
  readonly cron: string;
  readonly timezone: string;
  /** The frozen template, durations as ISO 8601. */
  readonly task: ScheduledTaskInput;
  readonly overlap: 'skip' | 'allow';
  readonly catch_up: 'none' | 'latest' | 'all';
  readonly paused: boolean;
  readonly revision: string;
  /** The slot fired next; null when the expression has no further slot. */
  readonly next_slot_at: string | null;
  /** Set while a slot refused with 429 waits to be tried again. */
  readonly retry_at: string | null;
  readonly last_slot_at: string | null;
  readonly last_task_id: string | null;
  readonly last_error_code: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}
