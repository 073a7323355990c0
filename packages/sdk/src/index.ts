/**
 * @weave/sdk: the client SDK of Weave. Depends only on @weave/json and the global `fetch`.
 *
 * @example
 * import { WeaveClient } from '@weave/sdk';
 * const client = new WeaveClient({ url: 'http://127.0.0.1:8420', namespace: 'dev', apiKey: process.env.WEAVE_KEY! });
 * console.log(await client.listQueues());
 */
export { WeaveClient } from './client.js';
export type { ClientOptions, RawResponse, RequestOptions } from './client.js';
export { WeaveApiError, isWeaveApiError } from './api-error.js';
export { toPlain } from './plain.js';
export type { Plain } from './plain.js';
export type { Application, Credential, CreatedCredential, Page, Queue } from './types.js';
export { ERROR_STATUS, SCOPES } from './protocol/index.js';
export type { ErrorCode, Scope } from './protocol/index.js';
