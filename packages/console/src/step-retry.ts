/**
 * What the Retry dialog of a FAILED or NEEDS_REVIEW step offers (docs/runtime.md "Recovery"): a
 * TASK or POLL is retried with an input, the last activation's shown for editing; a timed-out
 * SIGNAL waits again on a new wait and takes no input (the server refuses one).
 */
import { toJsonText } from './exact-json.js';

export interface RetryDialog {
  readonly description: string;
  /** The JSON field, when the step takes an input. */
  readonly json?: { readonly label: string; readonly initial: string };
  /** The dialog needs the step's activations (the input it ran with) before it opens. */
  readonly needsInput: boolean;
}

export function retryDialog(kind: string, lastInput: unknown): RetryDialog {
  if (kind === 'SIGNAL') {
    return {
      description:
        'The step waits for its signal again, on a new wait; the old one stays in the history.',
      needsInput: false,
    };
  }
  return {
    description: 'A new activation with this input; the old one stays in the history.',
    json: {
      label: 'Input (JSON)',
      initial: lastInput === undefined ? '{}' : toJsonText(lastInput),
    },
    needsInput: true,
  };
}
