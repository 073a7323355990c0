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
