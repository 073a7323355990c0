/** Instances → wire JSON (API.md "Weave"). Payloads are embedded as their stored exact text. */
import { formatInstant } from '@weave/sdk/protocol';
import type { instances } from '@weave/sdk/protocol';
import type { InstanceWithVersion } from '../weave/instance/read-instance.js';

export function instanceView({ instance, workflow }: InstanceWithVersion): instances.Instance {
  return {
    id: instance.id,
    workflow,
    version: instance.version,
    status: instance.status,
    revision: instance.revision.toString(),
    business_key: instance.businessKey,
    input: { kind: 'raw', text: instance.input },
    ...(instance.output === null ? {} : { output: { kind: 'raw', text: instance.output } }),
    ...(instance.errorCode === null
      ? {}
      : {
          error: {
            code: instance.errorCode,
            message: instance.errorMessage ?? '',
            ...(instance.errorStepId === null ? {} : { step_id: instance.errorStepId }),
          },
        }),
    deadline_at: formatInstant(instance.deadlineAt),
    created_at: formatInstant(instance.createdAt),
    ...(instance.finishedAt === null ? {} : { finished_at: formatInstant(instance.finishedAt) }),
    paused: instance.paused,
  };
}
