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

/**
 * Waits until the server answers `GET /readyz` and, without WEAVE_KEY, `weave dev`'s key file
 * exists (at most `timeoutMs`), so that an example started
 * together with the server (`npx weave dev & node examples/start-orders.mjs`) simply waits for
 * it, migrations included, instead of failing on the first connection.
 */
export async function waitForServer(env = process.env, timeoutMs = 120_000) {
  const url = env.WEAVE_URL ?? 'http://127.0.0.1:8420';
  const deadline = Date.now() + timeoutMs;
  let said = false;
  for (;;) {
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    // `weave dev` writes its key just after the server is up.
    const keyFile = join(resolve(env.WEAVE_DATA ?? '.weave'), 'dev-key');
    if (ready && (env.WEAVE_KEY !== undefined || existsSync(keyFile))) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`no Weave server answered at ${url} within ${timeoutMs} ms`);
    }
    if (!said) {
      console.error(`waiting for the Weave server at ${url} …`);
      said = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
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
