/** A JSON value as exact, indented text (numbers as the server wrote them). */
import { Code, Text } from '@mantine/core';
import { toJsonText } from '../exact-json.js';

export function JsonBlock({ value, label }: { readonly value: unknown; readonly label?: string }) {
  return (
    <div>
      {label !== undefined && (
        <Text size="xs" c="dimmed" fw={600}>
          {label}
        </Text>
      )}
      {value === undefined ? (
        <Text size="sm" c="dimmed">
          —
        </Text>
      ) : (
        <Code block data-testid={label === undefined ? undefined : `json-${label}`}>
          {toJsonText(value)}
        </Code>
      )}
    </div>
  );
}
