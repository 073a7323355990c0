import { Badge } from '@mantine/core';
import { statusColor } from '../status-colors.js';

export function StatusBadge({ status }: { readonly status: string | undefined }) {
  return (
    <Badge color={statusColor(status)} variant="light" data-testid="status-badge">
      {status ?? '—'}
    </Badge>
  );
}
