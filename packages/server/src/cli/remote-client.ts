/**
 * The commands that talk to a running server (`weave workflows publish`, later `weave instances
 * …`) use the SDK client like any other caller. Flags win over environment variables:
 * `--url` / `WEAVE_URL` (default http://127.0.0.1:8420), `--namespace` / `WEAVE_NAMESPACE`
 * (default `dev`), `--key` / `WEAVE_KEY` (required).
 */
import { WeaveClient } from '@weave/sdk';

export const REMOTE_OPTIONS = {
  url: { type: 'string' },
  namespace: { type: 'string' },
  key: { type: 'string' },
} as const;

export const REMOTE_HELP = `  --url URL        the server (default $WEAVE_URL or http://127.0.0.1:8420)
  --namespace NS   the namespace (default $WEAVE_NAMESPACE or dev)
  --key KEY        an API key (default $WEAVE_KEY)`;

export function remoteClient(values: Readonly<Record<string, unknown>>): WeaveClient {
  const pick = (flag: unknown, env: string | undefined) => (typeof flag === 'string' ? flag : env);
  const apiKey = pick(values.key, process.env.WEAVE_KEY);
  if (apiKey === undefined || apiKey === '') {
    throw new Error('an API key is required: --key KEY or WEAVE_KEY');
  }
  return new WeaveClient({
    url: pick(values.url, process.env.WEAVE_URL) ?? 'http://127.0.0.1:8420',
    namespace: pick(values.namespace, process.env.WEAVE_NAMESPACE) ?? 'dev',
    apiKey,
  });
}
