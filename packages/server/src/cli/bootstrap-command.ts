/**
 * `weave bootstrap --db … --namespace NS [--app A] [--queue Q …] [--scopes a,b]
 * [--workflow-access] [--instance-access] [--json]`.
 *
 * `--workflow-access` grants the definition scope only (`workflows:publish`; seed 002 §3: rights
 * to publish are not rights over instances). `--instance-access` grants the instance scopes.
 * With no scope option at all the credential gets `admin`.
 */
import { SCOPES, isScope } from '@weave/sdk/protocol';
import type { Scope } from '@weave/sdk/protocol';
import { bootstrap } from './bootstrap.js';
import { openDatabase } from '../store/database.js';
import { migrate } from '../store/migrate.js';
import { parseCommand, readDb } from './options.js';

const HELP = `usage: weave bootstrap --db URL --namespace NS [--app A] [--queue Q]... [--scopes s1,s2]
                       [--workflow-access] [--instance-access] [--name NAME] [--json]

  --namespace NS       namespace to create (or reuse)
  --app A              application to create (or reuse); queues belong to it
  --queue Q            queue to create under --app (repeatable)
  --scopes LIST        comma-separated scopes: ${SCOPES.join(', ')}
  --workflow-access    add the definition scope (workflows:publish) only
  --instance-access    add the instance scopes (workflows:start, workflows:read, workflows:signal,
                       workflows:control)
  --json               print {"namespace": "...", "key": "..."}`;

const INSTANCE_SCOPES: readonly Scope[] = [
  'workflows:start',
  'workflows:read',
  'workflows:signal',
  'workflows:control',
];

export async function runBootstrap(argv: readonly string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    db: { type: 'string' },
    namespace: { type: 'string' },
    app: { type: 'string' },
    queue: { type: 'string', multiple: true },
    scopes: { type: 'string' },
    'workflow-access': { type: 'boolean' },
    'instance-access': { type: 'boolean' },
    name: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const namespace = values.namespace as string | undefined;
  if (namespace === undefined) {
    throw new Error('--namespace is required');
  }
  const queues = (values.queue as string[] | undefined) ?? [];
  if (queues.length > 0 && values.app === undefined) {
    throw new Error('--queue needs --app (a queue belongs to an application)');
  }
  const scopes = readScopes(values);
  const database = openDatabase(readDb(values.db as string | undefined));
  try {
    await migrate(database);
    const result = await bootstrap(database, {
      namespace,
      ...(values.app === undefined ? {} : { application: values.app as string }),
      queues,
      scopes,
      credentialName: (values.name as string | undefined) ?? `bootstrap ${namespace}`,
    });
    process.stdout.write(
      values.json === true
        ? `${JSON.stringify({ namespace: result.namespace, key: result.key })}\n`
        : `namespace ${result.namespace}\ncredential ${result.credentialId}\nkey ${result.key}\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

function readScopes(values: Record<string, unknown>): Scope[] {
  const scopes = new Set<Scope>();
  const listed =
    typeof values.scopes === 'string' ? values.scopes.split(',').map((s) => s.trim()) : [];
  for (const s of listed.filter((x) => x !== '')) {
    if (!isScope(s)) {
      throw new Error(`--scopes: unknown scope ${s} (known: ${SCOPES.join(', ')})`);
    }
    scopes.add(s);
  }
  if (values['workflow-access'] === true) {
    scopes.add('workflows:publish');
  }
  if (values['instance-access'] === true) {
    INSTANCE_SCOPES.forEach((s) => scopes.add(s));
  }
  if (scopes.size === 0) {
    scopes.add('admin');
  }
  return [...scopes];
}
