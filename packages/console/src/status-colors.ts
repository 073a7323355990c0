/** One colour per step, instance and task status, used by the graph and the badges alike. */
const COLORS: Readonly<Record<string, string>> = {
  PENDING: 'gray',
  ACTIVE: 'blue',
  RUNNING: 'blue',
  CLAIMED: 'blue',
  WAITING: 'yellow',
  SCHEDULED: 'yellow',
  RETRY_WAIT: 'yellow',
  CANCELLING: 'orange',
  SUCCEEDED: 'green',
  DELIVERED: 'green',
  DONE: 'green',
  FAILED: 'red',
  TIMED_OUT: 'red',
  NEEDS_REVIEW: 'grape',
  CANCELLED: 'dark',
  SKIPPED: 'gray',
  SUPERSEDED: 'gray',
  VOID: 'gray',
  EXPIRED: 'orange',
};

/** Fill and stroke of a graph node, by the same palette as the badges. */
const FILLS: Readonly<Record<string, readonly [string, string]>> = {
  gray: ['#f1f3f5', '#adb5bd'],
  blue: ['#d0ebff', '#1c7ed6'],
  yellow: ['#fff3bf', '#f08c00'],
  orange: ['#ffe8cc', '#e8590c'],
  green: ['#d3f9d8', '#2f9e44'],
  red: ['#ffe3e3', '#e03131'],
  grape: ['#f3d9fa', '#9c36b5'],
  dark: ['#dee2e6', '#495057'],
};

export function statusColor(status: string | undefined): string {
  return (status === undefined ? undefined : COLORS[status]) ?? 'gray';
}

export function statusFill(status: string | undefined): readonly [string, string] {
  return FILLS[statusColor(status)] ?? ['#ffffff', '#868e96'];
}

export const ACTIVE_INSTANCE_STATUSES: ReadonlySet<string> = new Set([
  'RUNNING',
  'WAITING',
  'CANCELLING',
  'NEEDS_REVIEW',
]);
