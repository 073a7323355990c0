/**
 * The instance list's filters (API.md `GET /instances`): workflow, version, status (several),
 * business key and the created range. The same filter feeds the bulk operations.
 */
import { Button, Group, MultiSelect, TextInput } from '@mantine/core';
import type { InstanceListFilter } from '@weave/sdk';
import { useState } from 'react';

export const INSTANCE_STATUSES = [
  'RUNNING',
  'WAITING',
  'CANCELLING',
  'NEEDS_REVIEW',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
  'TIMED_OUT',
];

export interface FilterFields {
  readonly workflow: string;
  readonly version: string;
  readonly statuses: readonly string[];
  readonly businessKey: string;
  readonly createdAfter: string;
  readonly createdBefore: string;
}

export const EMPTY_FILTER: FilterFields = {
  workflow: '',
  version: '',
  statuses: [],
  businessKey: '',
  createdAfter: '',
  createdBefore: '',
};

/** The fields as the list API's query; empty fields are left out. */
export function toListFilter(f: FilterFields): InstanceListFilter {
  const out: Record<string, string | number> = {};
  if (f.workflow.trim() !== '') {
    out['workflow'] = f.workflow.trim();
  }
  if (f.version.trim() !== '') {
    out['version'] = Number(f.version.trim());
  }
  if (f.statuses.length > 0) {
    out['status'] = f.statuses.join(',');
  }
  if (f.businessKey !== '') {
    out['business_key'] = f.businessKey;
  }
  if (f.createdAfter !== '') {
    out['created_after'] = toInstant(f.createdAfter);
  }
  if (f.createdBefore !== '') {
    out['created_before'] = toInstant(f.createdBefore);
  }
  return out;
}

/** A `datetime-local` value (the browser's zone) as RFC 3339 UTC; other text as typed. */
function toInstant(local: string): string {
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? local : at.toISOString();
}

export function InstanceFilterForm(props: {
  readonly initial: FilterFields;
  readonly onApply: (f: FilterFields) => void;
}) {
  const [f, setF] = useState(props.initial);
  const set = (patch: Partial<FilterFields>) => setF((old) => ({ ...old, ...patch }));
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(f);
      }}
    >
      <Group align="flex-end" gap="xs" wrap="wrap">
        <TextInput
          label="Workflow"
          value={f.workflow}
          onChange={(e) => set({ workflow: e.currentTarget.value })}
          w={140}
          data-testid="filter-workflow"
        />
        <TextInput
          label="Version"
          value={f.version}
          onChange={(e) => set({ version: e.currentTarget.value })}
          w={80}
        />
        <MultiSelect
          label="Status"
          data={INSTANCE_STATUSES}
          value={[...f.statuses]}
          onChange={(v) => set({ statuses: v })}
          w={260}
          clearable
        />
        <TextInput
          label="Business key"
          value={f.businessKey}
          onChange={(e) => set({ businessKey: e.currentTarget.value })}
          w={150}
        />
        <TextInput
          label="Created after"
          type="datetime-local"
          value={f.createdAfter}
          onChange={(e) => set({ createdAfter: e.currentTarget.value })}
        />
        <TextInput
          label="Created before"
          type="datetime-local"
          value={f.createdBefore}
          onChange={(e) => set({ createdBefore: e.currentTarget.value })}
        />
        <Button type="submit" data-testid="filter-apply">
          Apply
        </Button>
        <Button
          variant="default"
          onClick={() => {
            setF(EMPTY_FILTER);
            props.onApply(EMPTY_FILTER);
          }}
        >
          Clear
        </Button>
      </Group>
    </form>
  );
}
