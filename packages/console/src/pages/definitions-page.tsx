/**
 * Definitions: the namespace's workflows, each workflow's versions, and a version drawn as a
 * graph next to its source exactly as published (`/definitions/:workflow/:version`).
 */
import { Grid, Group, Paper, Stack, Table, Title } from '@mantine/core';
import { useClient } from '../client-context.js';
import { ErrorAlert } from '../components/error-alert.js';
import { JsonBlock } from '../components/json-block.js';
import { GraphView } from '../graph/graph-view.js';
import { Link, matchPath } from '../router.js';
import { useDefinition } from '../use-definition.js';
import { usePoll } from '../use-poll.js';
import { StartInstance } from './start-instance.js';

export function DefinitionsPage({ path }: { readonly path: string }) {
  const version = matchPath('/definitions/:workflow/:version', path);
  if (version !== undefined) {
    return (
      <VersionView workflow={version['workflow'] ?? ''} version={Number(version['version'])} />
    );
  }
  const workflow = matchPath('/definitions/:workflow', path);
  return workflow === undefined ? (
    <WorkflowList />
  ) : (
    <VersionList workflow={workflow['workflow'] ?? ''} />
  );
}

function WorkflowList() {
  const client = useClient();
  const list = usePoll(() => client.workflows.list({ page_size: 500 }), [client]);
  return (
    <Stack>
      <Title order={3}>Definitions</Title>
      <ErrorAlert error={list.error} />
      <Table data-testid="workflows-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>workflow</Table.Th>
            <Table.Th>latest version</Table.Th>
            <Table.Th>updated</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(list.data?.items ?? []).map((w) => (
            <Table.Tr key={w.id}>
              <Table.Td>
                <Link to={`/definitions/${w.name}`}>{w.name}</Link>
              </Table.Td>
              <Table.Td>
                <Link to={`/definitions/${w.name}/${w.latest_version}`}>v{w.latest_version}</Link>
              </Table.Td>
              <Table.Td>{w.updated_at}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function VersionList({ workflow }: { readonly workflow: string }) {
  const client = useClient();
  const list = usePoll(
    () => client.workflows.listVersions(workflow, { page_size: 500 }),
    [client, workflow],
  );
  return (
    <Stack>
      <Group>
        <Link to="/definitions">Definitions</Link>
        <Title order={3}>{workflow}</Title>
        <Link to={`/instances?workflow=${workflow}`}>instances</Link>
      </Group>
      <ErrorAlert error={list.error} />
      <Table>
        <Table.Tbody>
          {(list.data?.items ?? []).map((v) => (
            <Table.Tr key={v.version}>
              <Table.Td>
                <Link to={`/definitions/${workflow}/${v.version}`}>v{v.version}</Link>
              </Table.Td>
              <Table.Td>{v.created_at}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function VersionView({
  workflow,
  version,
}: {
  readonly workflow: string;
  readonly version: number;
}) {
  const loaded = useDefinition(workflow, version);
  return (
    <Stack>
      <Group>
        <Link to="/definitions">Definitions</Link>
        <Link to={`/definitions/${workflow}`}>{workflow}</Link>
        <Title order={3}>
          {workflow} v{version}
        </Title>
        <StartInstance workflow={workflow} />
      </Group>
      <ErrorAlert error={loaded.error} />
      <Grid>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Paper withBorder p="xs" style={{ overflow: 'auto' }}>
            {loaded.graph !== undefined && <GraphView graph={loaded.graph} />}
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <JsonBlock label="source" value={loaded.definition} />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
