/**
 * `weave dev --with-examples` (issue 13 Deliver 1): the example workflows are published and the
 * example worker (examples/order-fulfilment.mjs, the module `node examples/worker.mjs` runs)
 * works in the server's process, so an instance started at once completes; a payment declined
 * from the input fails the instance, and a retry of the step with an edited input finishes it.
 * The `--json` line is unchanged.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { jsonNumber, stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';
import { WeaveClient } from '@weave/sdk';
import { startWeave } from '../support/processes.js';
import { waitFor } from '../support/wait-for.js';

/** The instance output as exact JSON text (the SDK keeps inexact numbers as JsonNumbers). */
function outputText(instance: { readonly output?: unknown }): string {
  return stringify((instance.output ?? null) as JsonInput);
}

test('weave dev --with-examples: the example is published and its in-process worker completes instances, a failed step is retried with an edited input', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'weave-dev-examples-'));
  const dev = await startWeave(['dev', '--json', '--port', '0', '--data', dir, '--with-examples']);
  try {
    const line = JSON.parse(dev.firstLine) as { url: string; namespace: string; key: string };
    assert.deepEqual(Object.keys(line), ['url', 'namespace', 'key'], 'the --json line as ever');
    const client = new WeaveClient({ url: line.url, namespace: 'dev', apiKey: line.key });
    const { latest } = await client.workflows.get('order-fulfilment');
    assert.equal(latest.version, 1);

    const finished = (id: string) =>
      waitFor(
        async () => {
          const { instance } = await client.instances.get(id);
          return ['SUCCEEDED', 'FAILED'].includes(instance.status) ? instance : undefined;
        },
        { timeoutMs: 30_000, what: `instance ${id} ending` },
      );

    const ok = await client.instances.start('order-fulfilment', {
      input: { order_id: 'A-1', amount: jsonNumber('999.999999999999999999') },
    });
    const declined = await client.instances.start('order-fulfilment', {
      input: { order_id: 'A-2', amount: jsonNumber('10.10'), fail_payment: true },
    });
    const done = await finished(ok.instance.id);
    assert.equal(done.status, 'SUCCEEDED', stringify(done.error ?? null));
    assert.match(outputText(done), /"amount":999\.999999999999999999,/);
    assert.match(outputText(done), /"charged":999\.999999999999999999,/);
    assert.match(outputText(done), /"by":"auto"/, 'not over 1000: no approval');

    const failed = await finished(declined.instance.id);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.error?.code, 'card_declined');
    const charge = await client.instances.step(declined.instance.id, 'charge');
    const input = charge.activations.at(-1)?.input as Record<string, unknown>;
    assert.equal(input.fail_payment, true);
    await client.instances.retry(declined.instance.id, 'charge', {
      input: { ...input, fail_payment: false },
      reason: 'test: the card was updated',
    });
    const retried = await waitFor(
      async () => {
        const { instance } = await client.instances.get(declined.instance.id);
        return instance.status === 'SUCCEEDED' ? instance : undefined;
      },
      { timeoutMs: 30_000, what: 'the retried instance' },
    );
    assert.match(outputText(retried), /"charged":10\.10,/);
  } finally {
    assert.equal(await dev.stop('SIGINT'), 0, dev.stderr());
    rmSync(dir, { recursive: true, force: true });
  }
});
