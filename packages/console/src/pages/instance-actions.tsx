/**
 * Instance controls: signal (to this instance's waiting step, by name), pause, resume and
 * cancel, each confirmed first; `expected_revision` is sent so an instance that moved on answers
 * `revision_mismatch` rather than acting on a state the operator did not see.
 */
import { Group } from '@mantine/core';
import type { Instance } from '@weave/sdk';
import { useRef } from 'react';
import { useClient } from '../client-context.js';
import { ConfirmAction } from '../components/confirm-action.js';
import { ACTIVE_INSTANCE_STATUSES } from '../status-colors.js';

export function InstanceActions(props: {
  readonly instance: Instance;
  readonly onDone: () => void;
}) {
  const client = useClient();
  const { instance, onDone } = props;
  const active = ACTIVE_INSTANCE_STATUSES.has(instance.status);
  // The page keeps polling behind an open dialog: the revision sent is the one shown when the
  // dialog opened, so a change made meanwhile answers `revision_mismatch`.
  const seen = useRef(instance.revision);
  const open = () => {
    seen.current = instance.revision;
  };
  const control = (reason: string) => ({
    expected_revision: seen.current,
    ...(reason === '' ? {} : { reason }),
  });
  return (
    <Group gap="xs">
      <ConfirmAction
        label="Signal"
        title="Send a signal to this instance"
        description="Delivered to the waiting step of that name (payload version 1)."
        extra={{ label: 'Signal name', initial: '' }}
        json={{ label: 'Payload (JSON)', initial: '{}' }}
        reason={false}
        run={({ extra, json }) =>
          client.instances.signal(instance.id, {
            name: extra.trim(),
            payload: json ?? null,
            payload_version: 1,
          })
        }
        onDone={onDone}
      />
      {active && !instance.paused && (
        <ConfirmAction
          label="Pause"
          title={`Pause instance ${instance.id}`}
          description="No new work starts; results of work in flight are still recorded."
          onOpen={open}
          run={({ reason }) => client.instances.pause(instance.id, control(reason))}
          onDone={onDone}
        />
      )}
      {instance.paused && (
        <ConfirmAction
          label="Resume"
          title={`Resume instance ${instance.id}`}
          onOpen={open}
          run={({ reason }) => client.instances.resume(instance.id, control(reason))}
          onDone={onDone}
        />
      )}
      {active && (
        <ConfirmAction
          label="Cancel"
          color="red"
          title={`Cancel instance ${instance.id}`}
          description="CANCELLING until the work in flight has settled, then CANCELLED."
          onOpen={open}
          run={({ reason }) => client.instances.cancel(instance.id, control(reason))}
          onDone={onDone}
        />
      )}
    </Group>
  );
}
