/**
 * Instances: the list with the list API's filters, newest first, page by page (the page tokens
 * walked so far are kept so Previous works), starting an instance, and bulk operations on the
 * same filter.
 */
import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useClient } from '../client-context.js';
import { ErrorAlert } from '../components/error-alert.js';
import { StatusBadge } from '../components/status-badge.js';
import { Link } from '../router.js';
import { usePoll } from '../use-poll.js';
import { BulkOperations } from './bulk-operations.js';
import { EMPTY_FILTER, InstanceFilterForm, toListFilter } from './instance-filter.js';
import type { FilterFields } from './instance-filter.js';
import { StartInstance } from './start-instance.js';

const PAGE_SIZE = 25;

export function InstancesPage({ path }: { readonly path: string }) {
  const client = useClient();
  const initialWorkflow = new URLSearchParams(path.split('?')[1] ?? '').get('workflow') ?? '';
  const [filter, setFilter] = useState<FilterFields>({
    ...EMPTY_FILTER,
    workflow: initialWorkflow,
  });
  const [tokens, setTokens] = useState<readonly (string | undefined)[]>([undefined]);
  const token = tokens[tokens.length - 1];
  const page = usePoll(
    () =>
      client.instances.list({
        ...toListFilter(filter),
        page_size: PAGE_SIZE,
        ...(token === undefined ? {} : { page_token: token }),
      }),
    [client, filter, token],
    { intervalMs: 3000 },
  );
  const apply = (f: FilterFields) => {
    setFilter(f);
    setTokens([undefined]);
  };
  const next = page.data?.next_page_token;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>Instances</Title>
        <StartInstance workflow={filter.workflow} />
      </Group>
      <InstanceFilterForm initial={filter} onApply={apply} />
      <ErrorAlert error={page.error} />
      <Table striped highlightOnHover data-testid="instances-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>id</Table.Th>
            <Table.Th>workflow</Table.Th>
            <Table.Th>status</Table.Th>
            <Table.Th>business key</Table.Th>
            <Table.Th>created</Table.Th>
            <Table.Th>finished</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(page.data?.items ?? []).map((i) => (
            <Table.Tr key={i.id} data-testid={`instance-row-${i.id}`}>
              <Table.Td>
                <Link to={`/instances/${i.id}`}>{i.id}</Link>
              </Table.Td>
              <Table.Td>
                {i.workflow} v{i.version}
              </Table.Td>
              <Table.Td>
                <StatusBadge status={i.status} />
                {i.paused && (
                  <Text span size="xs" c="dimmed" ml={4}>
                    paused
                  </Text>
                )}
              </Table.Td>
              <Table.Td>{i.business_key ?? ''}</Table.Td>
              <Table.Td>{i.created_at}</Table.Td>
              <Table.Td>{i.finished_at ?? ''}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group>
        <Button
          variant="default"
          size="xs"
          // While a page loads, its tokens are not known yet: a second click would skip or repeat.
          disabled={tokens.length <= 1 || page.loading}
          onClick={() => setTokens((t) => t.slice(0, -1))}
        >
          Previous
        </Button>
        <Text size="sm">page {tokens.length}</Text>
        <Button
          variant="default"
          size="xs"
          disabled={next === undefined || page.loading}
          onClick={() => setTokens((t) => [...t, next])}
        >
          Next
        </Button>
      </Group>
      <BulkOperations filter={filter} onChange={page.reload} />
    </Stack>
  );
}
