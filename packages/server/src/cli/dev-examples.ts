/**
 * `weave dev --with-examples`: publishes the workflows of the checkout's `examples/` folder and
 * runs their task handlers in this process with the SDK Worker, over the public API like any
 * worker. The handlers are the module `node examples/worker.mjs` runs (examples/index.mjs), so
 * there is one implementation of the example, not a copy in the server.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WeaveClient, Worker } from '@weave/sdk';
import type { TaskHandler } from '@weave/sdk';

/** From build/src/cli/ up to the repository root, then examples/index.mjs. */
const EXAMPLES_INDEX = new URL('../../../../../examples/index.mjs', import.meta.url);
/** Enough for the examples' few instances at once; the dev server is for one person. */
const EXAMPLE_CONCURRENCY = 16;

/** What examples/index.mjs exports. */
interface ExamplesModule {
  loadWorkflows(): unknown[];
  createExampleHandlers(): Record<string, TaskHandler>;
}

export interface RunningExamples {
  /** The published workflows: name and version. */
  readonly workflows: readonly { readonly name: string; readonly version: number }[];
  /** The queues the in-process worker serves. */
  readonly queues: readonly string[];
  /** Stops claiming and lets running tasks finish. */
  stop(): Promise<void>;
}

export async function startExamples(options: {
  readonly url: string;
  readonly key: string;
}): Promise<RunningExamples> {
  const file = fileURLToPath(EXAMPLES_INDEX);
  if (!existsSync(file)) {
    throw new Error(`--with-examples needs the examples/ folder of a Weave checkout (${file})`);
  }
  const examples = (await import(EXAMPLES_INDEX.href)) as ExamplesModule;
  const client = new WeaveClient({ url: options.url, namespace: 'dev', apiKey: options.key });
  const workflows = [];
  for (const definition of examples.loadWorkflows()) {
    const published = await client.workflows.publish(definition);
    workflows.push({ name: published.workflow, version: published.version });
  }
  const handlers = examples.createExampleHandlers();
  const worker = new Worker({
    client,
    handlers,
    concurrency: EXAMPLE_CONCURRENCY,
    workerId: 'weave-dev-examples',
    onError: (e: unknown) =>
      process.stderr.write(`weave dev: example worker: ${(e as Error).message ?? String(e)}\n`),
  });
  worker.start();
  return { workflows, queues: Object.keys(handlers), stop: () => worker.stop() };
}
