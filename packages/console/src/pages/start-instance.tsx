/** Start an instance of a published workflow: name, optional business key, input as exact JSON. */
import { useClient } from '../client-context.js';
import { ConfirmAction } from '../components/confirm-action.js';
import { navigate } from '../router.js';

export function StartInstance({ workflow }: { readonly workflow?: string }) {
  const client = useClient();
  return (
    <ConfirmAction
      label="Start instance"
      title="Start an instance"
      description="Workflow name and business key (optional, after a space), then the input."
      extra={{ label: 'Workflow [business key]', initial: workflow ?? '' }}
      json={{ label: 'Input (JSON)', initial: '{}' }}
      reason={false}
      run={async ({ json, extra }) => {
        const [name = '', ...key] = extra.trim().split(/\s+/);
        const businessKey = key.join(' ');
        const { instance } = await client.instances.start(name, {
          input: json ?? null,
          ...(businessKey === '' ? {} : { business_key: businessKey }),
        });
        navigate(`/instances/${instance.id}`);
      }}
    />
  );
}
