/**
 * The package's entry on Node (`exports["."].node`): the same API as ../index.ts, with the client's
 * HTTP exchange over `node:http` (node/http.ts) instead of the global `fetch`.
 * `ClientOptions.fetch` still replaces it.
 */
import { usePlatformExchange } from '../http-exchange.js';
import { nodeExchange } from './http.js';

usePlatformExchange(nodeExchange());

export * from '../index.js';
