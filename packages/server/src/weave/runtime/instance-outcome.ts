/**
 * The outcome of an instance on its Orbit stream (Deliver 8): `instance.succeeded` (with the
 * output), `instance.failed` (with the cause), later `.cancelled` and `.timed_out`, appended in
 * the transaction that ends the instance — the application's default stream, or the
 * `result_stream` given at Start. Exact JSON: the output text is embedded as stored.
 */
import { appendResult } from '../../orbit/append-result.js';
import type { Tx } from '../../store/with-tx.js';

export interface EndedInstance {
  readonly namespaceId: string;
  readonly applicationId: string;
  readonly resultStreamId: string | null;
  readonly instanceId: string;
  readonly workflow: string;
  readonly version: number;
  readonly revision: bigint;
  readonly status: string;
  /** JSON text of the output (SUCCEEDED). */
  readonly output: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
}

export function appendInstanceOutcome(tx: Tx, ended: EndedInstance): Promise<void> {
  return appendResult(tx, {
    namespaceId: ended.namespaceId,
    applicationId: ended.applicationId,
    streamId: ended.resultStreamId,
    type: `instance.${ended.status.toLowerCase()}`,
    source: { kind: 'instance', id: ended.instanceId },
    revision: ended.revision,
    fields: {
      instance_id: ended.instanceId,
      workflow: ended.workflow,
      version: ended.version,
      revision: ended.revision.toString(),
      status: ended.status,
      ...(ended.output === null ? {} : { result: { kind: 'raw', text: ended.output } }),
      ...(ended.error === null ? {} : { error: ended.error }),
    },
  });
}
