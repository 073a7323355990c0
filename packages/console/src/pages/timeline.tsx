/**
 * A timeline of step activations and their task attempts, as bars over the instance's life
 * (created → finished, or now). Step details are read again only when the instance revision
 * changes, and only for steps that have started.
 */
import { Paper, Table, Text, Title, Tooltip } from '@mantine/core';
import type { Instance } from '@weave/sdk';
import { useRef } from 'react';
import { useClient } from '../client-context.js';
import { ACTIVE_INSTANCE_STATUSES, statusFill } from '../status-colors.js';
import { usePoll } from '../use-poll.js';

interface StepsView {
  readonly revision: string;
  readonly steps: readonly { readonly id: string; readonly status: string }[];
}

interface Bar {
  readonly key: string;
  readonly label: string;
  readonly status: string;
  readonly from: string;
  readonly to: string | undefined;
  readonly note: string;
}

const NOT_STARTED = new Set(['PENDING', 'SKIPPED']);
/**
 * A running instance's revision moves with every event; its step details (one read per started
 * step, up to 128) are read again at most this often, and once more when it ends.
 */
const REFRESH_MS = 5000;

/** The revision the timeline was last read at, advanced at most every REFRESH_MS while active. */
function useThrottledRevision(revision: string | undefined, final: boolean): string | undefined {
  const last = useRef<{ revision: string | undefined; at: number }>({ revision, at: 0 });
  const now = Date.now();
  if (revision !== last.current.revision && (final || now - last.current.at >= REFRESH_MS)) {
    last.current = { revision, at: now };
  }
  return last.current.revision;
}

export function Timeline(props: {
  readonly instance: Instance;
  readonly steps: StepsView | undefined;
}) {
  const client = useClient();
  const { instance, steps } = props;
  const started = (steps?.steps ?? []).filter((s) => !NOT_STARTED.has(s.status));
  const revision = useThrottledRevision(
    steps?.revision,
    !ACTIVE_INSTANCE_STATUSES.has(instance.status),
  );
  const bars = usePoll(async () => {
    const details = await Promise.all(started.map((s) => client.instances.step(instance.id, s.id)));
    return details.flatMap((d) => toBars(d));
  }, [client, instance.id, revision]);
  const begin = Date.parse(instance.created_at);
  const end = Math.max(Date.parse(instance.finished_at ?? new Date().toISOString()), begin + 1);
  const at = (t: string | undefined) =>
    (100 * ((t === undefined ? end : Date.parse(t)) - begin)) / (end - begin);
  return (
    <Paper withBorder p="sm">
      <Title order={4}>Timeline</Title>
      <Table data-testid="timeline">
        <Table.Tbody>
          {(bars.data ?? []).map((b) => {
            const left = Math.max(0, Math.min(100, at(b.from)));
            const width = Math.max(0.5, Math.min(100 - left, at(b.to) - left));
            const [fill, stroke] = statusFill(b.status);
            return (
              <Table.Tr key={b.key}>
                <Table.Td w={220}>
                  <Text size="xs">{b.label}</Text>
                </Table.Td>
                <Table.Td>
                  <Tooltip label={`${b.status} ${b.from} → ${b.to ?? 'now'} ${b.note}`}>
                    <div style={{ position: 'relative', height: 12 }}>
                      <div
                        style={{
                          position: 'absolute',
                          left: `${left}%`,
                          width: `${width}%`,
                          height: 12,
                          background: fill,
                          border: `1px solid ${stroke}`,
                          borderRadius: 3,
                        }}
                      />
                    </div>
                  </Tooltip>
                </Table.Td>
                <Table.Td w={110}>
                  <Text size="xs">{b.status}</Text>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

interface DetailLike {
  readonly id: string;
  readonly activations: readonly {
    readonly id: string;
    readonly number: number;
    readonly status: string;
    readonly created_at: string;
    readonly finished_at?: string;
    readonly task?: {
      readonly attempts: readonly {
        readonly id: string;
        readonly number: number;
        readonly status: string;
        readonly worker_id: string;
        readonly claimed_at: string;
        readonly finished_at?: string;
      }[];
    };
  }[];
}

export function toBars(detail: DetailLike): Bar[] {
  const out: Bar[] = [];
  const activations = [...detail.activations].sort((a, b) => a.number - b.number);
  for (const a of activations) {
    out.push({
      key: `a${a.id}`,
      label: `${detail.id} · activation ${a.number}`,
      status: a.status,
      from: a.created_at,
      to: a.finished_at,
      note: '',
    });
    const attempts = [...(a.task?.attempts ?? [])].sort((x, y) => x.number - y.number);
    for (const t of attempts) {
      out.push({
        key: `t${t.id}`,
        label: `\u2003attempt ${t.number} (${t.worker_id})`,
        status: t.status,
        from: t.claimed_at,
        to: t.finished_at,
        note: `worker ${t.worker_id}`,
      });
    }
  }
  return out;
}
