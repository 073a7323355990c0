/**
 * Recovery of one step (docs/runtime.md): on a FAILED or NEEDS_REVIEW step, retry (the last
 * activation's input shown for editing first; a timed-out SIGNAL without one), resolve with an
 * output, or (NEEDS_REVIEW) fail with an error. Edited JSON is parsed with @weave/json so numbers are sent exactly.
 */
import { Group, Paper, Stack, Text } from '@mantine/core';
import { useClient } from '../client-context.js';
import { ConfirmAction } from '../components/confirm-action.js';
import { ErrorAlert } from '../components/error-alert.js';
import { StatusBadge } from '../components/status-badge.js';
import { Link } from '../router.js';
import { retryDialog } from '../step-retry.js';
import { usePoll } from '../use-poll.js';

interface StepRef {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly activation_id?: string;
}

const RECOVERABLE = new Set(['FAILED', 'NEEDS_REVIEW']);

export function StepActions(props: {
  readonly instanceId: string;
  readonly step: StepRef;
  readonly onDone: () => void;
}) {
  const client = useClient();
  const { instanceId, step, onDone } = props;
  const recoverable = RECOVERABLE.has(step.status);
  const detail = usePoll(
    () => (recoverable ? client.instances.step(instanceId, step.id) : Promise.resolve(undefined)),
    // A retried step that failed again between two polls keeps its status: its activation
    // tells the detail to load again.
    [client, instanceId, step.id, step.status, step.activation_id],
  );
  const retry = retryDialog(step.kind, latest(detail.data?.activations ?? [])?.input);
  const reason = (r: string) => (r === '' ? 'from the console' : r);
  return (
    <Paper withBorder p="sm" data-testid="step-panel">
      <Stack gap="xs">
        <Group>
          <Text fw={600}>Step {step.id}</Text>
          <Text size="sm">{step.kind}</Text>
          <StatusBadge status={step.status} />
          <Link to={`/instances/${instanceId}/steps/${encodeURIComponent(step.id)}`}>detail</Link>
        </Group>
        <ErrorAlert error={detail.error} />
        {recoverable && (
          <Group gap="xs">
            <ConfirmAction
              label="Retry step"
              title={`Retry step ${step.id}`}
              description={retry.description}
              // Until the step's activations have loaded, the dialog would offer `{}` in place of
              // the input the step ran with: the button waits for them.
              pending={retry.needsInput && detail.loading}
              {...(retry.json === undefined ? {} : { json: retry.json })}
              run={({ json, reason: r }) =>
                client.instances.retry(instanceId, step.id, {
                  ...(json === undefined ? {} : { input: json }),
                  reason: reason(r),
                })
              }
              onDone={onDone}
            />
            <ConfirmAction
              label="Resolve step"
              title={`Resolve step ${step.id}`}
              description="The step succeeds with this output; the instance continues."
              json={{ label: 'Output (JSON)', initial: '{}' }}
              run={({ json, reason: r }) =>
                client.instances.resolve(instanceId, step.id, {
                  output: json ?? null,
                  reason: reason(r),
                })
              }
              onDone={onDone}
            />
            {step.status === 'NEEDS_REVIEW' && (
              <ConfirmAction
                label="Fail step"
                color="red"
                title={`Fail step ${step.id}`}
                json={{
                  label: 'Error (JSON: code, message)',
                  initial: '{"code": "failed_by_operator", "message": ""}',
                }}
                run={({ json, reason: r }) =>
                  client.instances.fail(instanceId, step.id, {
                    error: json as never,
                    reason: reason(r),
                  })
                }
                onDone={onDone}
              />
            )}
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

/** The activation with the highest number (the current one). */
export function latest<T extends { readonly number: number }>(items: readonly T[]): T | undefined {
  return items.reduce<T | undefined>(
    (best, a) => (best === undefined || a.number > best.number ? a : best),
    undefined,
  );
}
