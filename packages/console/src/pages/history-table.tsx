/** The instance's history, read page by page from the cursor (read again when the revision moves). */
import { Code, Paper, Table, Text, Title } from '@mantine/core';
import { useClient } from '../client-context.js';
import { ErrorAlert } from '../components/error-alert.js';
import { toCellText } from '../exact-json.js';
import { usePoll } from '../use-poll.js';

/** Enough for a screen; the API pages at most 1000 per read. */
const MAX_EVENTS = 500;

export function HistoryTable(props: { readonly instanceId: string; readonly revision: string }) {
  const client = useClient();
  const history = usePoll(async () => {
    const events = [];
    let after = '0';
    while (events.length < MAX_EVENTS) {
      const limit = Math.min(200, MAX_EVENTS - events.length);
      const page = await client.instances.history(props.instanceId, { after, limit });
      events.push(...page.events);
      if (page.events.length < limit) {
        break;
      }
      after = page.next_after;
    }
    return events;
  }, [client, props.instanceId, props.revision]);
  return (
    <Paper withBorder p="sm">
      <Title order={4}>History</Title>
      <ErrorAlert error={history.error} />
      {history.data?.length === MAX_EVENTS && (
        <Text size="sm" c="dimmed" data-testid="history-truncated">
          {`The first ${MAX_EVENTS} events; the rest through the API: GET /instances/{id}/history.`}
        </Text>
      )}
      <Table data-testid="history">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>seq</Table.Th>
            <Table.Th>at</Table.Th>
            <Table.Th>type</Table.Th>
            <Table.Th>step</Table.Th>
            <Table.Th>details</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(history.data ?? []).map((e) => (
            <Table.Tr key={e.seq}>
              <Table.Td>{e.seq}</Table.Td>
              <Table.Td>{e.at}</Table.Td>
              <Table.Td>{e.type}</Table.Td>
              <Table.Td>{e.step_id ?? ''}</Table.Td>
              <Table.Td>
                {e.details === undefined ? '' : <Code>{toCellText(e.details)}</Code>}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
