// How the examples reach a server: WEAVE_URL, WEAVE_NAMESPACE and WEAVE_KEY, or else what
// `weave dev` uses: http://127.0.0.1:8420, namespace `dev`, and the key it keeps in
// `.weave/dev-key` (or `$WEAVE_DATA/dev-key`) in the folder you run the example from.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WeaveClient } from '@weave/sdk';

/** The settings the examples use, from the environment or `weave dev`'s defaults. */
export function connectionSettings(env = process.env) {
  const url = env.WEAVE_URL ?? 'http://127.0.0.1:8420';
  const namespace = env.WEAVE_NAMESPACE ?? 'dev';
  const apiKey = env.WEAVE_KEY ?? readDevKey(resolve(env.WEAVE_DATA ?? '.weave'));
  return { url, namespace, apiKey };
}

/** A client for the examples' server (see connectionSettings). */
export function connect(env = process.env) {
  return new WeaveClient(connectionSettings(env));
}

function readDevKey(dataDir) {
  const file = join(dataDir, 'dev-key');
  if (!existsSync(file)) {
    throw new Error(
      `no API key: set WEAVE_KEY, or start \`npx weave dev\` in this folder (it keeps its key in ${file})`,
    );
  }
  return readFileSync(file, 'utf8').trim();
}
