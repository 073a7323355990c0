/**
 * Creating an application: its row and quota (auth/applications.ts), then its default result
 * stream of the same name (streams.ts), in the caller's transaction. It lives at the orbit layer
 * because auth sits below orbit and may not import it (ARCHITECTURE.md).
 */
import type { Application, ApplicationInput } from '../auth/applications.js';
import { insertApplication } from '../auth/applications.js';
import type { Tx } from '../store/with-tx.js';
import { createDefaultStream } from './streams.js';

export async function createApplication(
  tx: Tx,
  namespaceId: string,
  input: ApplicationInput,
): Promise<Application> {
  const application = await insertApplication(tx, namespaceId, input);
  await createDefaultStream(tx, namespaceId, application);
  return application;
}
