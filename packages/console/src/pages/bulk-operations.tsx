/**
 * Bulk cancel / pause / resume / retry_failed of every instance matching the list's filter
 * (`client.operations.create`), with the operation's progress polled every second until it is
 * no longer RUNNING, and the namespace's recent operations.
 */
import { Group, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useClient } from '../client-context.js';
import { ConfirmAction } from '../components/confirm-action.js';
import { ErrorAlert } from '../components/error-alert.js';
import { StatusBadge } from '../components/status-badge.js';
import { toCellText } from '../exact-json.js';
import { usePoll } from '../use-poll.js';
import { toListFilter } from './instance-filter.js';
import type { FilterFields } from './instance-filter.js';

const ACTIONS = ['cancel', 'pause', 'resume', 'retry_failed'] as const;

export function BulkOperations(props: {
  readonly filter: FilterFields;
  readonly onChange: () => void;
}) {
  const client = useClient();
  const [watched, setWatched] = useState<string | undefined>(undefined);
  const list = usePoll(() => client.operations.list({ page_size: 10 }), [client, watched], {
    intervalMs: 1000,
    active: (page) => page.items.some((o) => o.status === 'RUNNING'),
  });
  const filterText = toCellText(toListFilter(props.filter));
  return (
    <Stack gap="xs">
      <Title order={4}>Bulk operations</Title>
      <Text size="sm" c="dimmed">
        On every instance matching the filter above: {filterText}
      </Text>
      <Group>
        {ACTIONS.map((action) => (
          <ConfirmAction
            key={action}
            label={`Bulk ${action}`}
            title={`${action} every matching instance`}
            description={`Filter: ${filterText}. The server runs the operation in batches, each instance once.`}
            color={action === 'cancel' ? 'red' : 'blue'}
            run={async ({ reason }) => {
              const { operation } = await client.operations.create({
                action,
                filter: toListFilter(props.filter),
                ...(reason === '' ? {} : { reason }),
              });
              setWatched(operation.id);
              props.onChange();
            }}
          />
        ))}
      </Group>
      <ErrorAlert error={list.error} />
      <Table data-testid="operations-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>id</Table.Th>
            <Table.Th>action</Table.Th>
            <Table.Th>status</Table.Th>
            <Table.Th>progress</Table.Th>
            <Table.Th>created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(list.data?.items ?? []).map((o) => {
            const settled = o.done + o.failed + (o.skipped ?? 0);
            return (
              <Table.Tr key={o.id}>
                <Table.Td>{o.id}</Table.Td>
                <Table.Td>{o.action}</Table.Td>
                <Table.Td>
                  <StatusBadge status={o.status} />
                </Table.Td>
                <Table.Td w={260}>
                  <Progress value={o.matched === 0 ? 100 : (100 * settled) / o.matched} />
                  <Text size="xs">
                    {o.done} done, {o.failed} failed, {o.skipped ?? 0} skipped of {o.matched}
                  </Text>
                </Table.Td>
                <Table.Td>{o.created_at}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
