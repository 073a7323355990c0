/** Status, revision, business key, deadline, times, input, and output or error. */
import { Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import type { Instance } from '@weave/sdk';
import { JsonBlock } from '../components/json-block.js';

export function InstanceSummary({ instance }: { readonly instance: Instance }) {
  const facts: [string, string][] = [
    ['status', `${instance.status}${instance.paused ? ' (paused)' : ''}`],
    ['revision', instance.revision],
    ['business key', instance.business_key ?? '—'],
    ['deadline', instance.deadline_at],
    ['created', instance.created_at],
    ['finished', instance.finished_at ?? '—'],
  ];
  return (
    <Paper withBorder p="sm" data-testid="instance-summary">
      <Stack gap="xs">
        <SimpleGrid cols={2} spacing={4}>
          {facts.map(([label, value]) => (
            <div key={label}>
              <Text size="xs" c="dimmed">
                {label}
              </Text>
              <Text size="sm" data-testid={`summary-${label.replace(' ', '-')}`}>
                {value}
              </Text>
            </div>
          ))}
        </SimpleGrid>
        <JsonBlock label="input" value={instance.input} />
        {instance.output !== undefined && <JsonBlock label="output" value={instance.output} />}
        {instance.error !== undefined && <JsonBlock label="error" value={instance.error} />}
      </Stack>
    </Paper>
  );
}
