/** Wire types and constants shared by the server and the SDK. */
export { ERROR_STATUS, isErrorCode, statusOf } from './errors.js';
export type { ErrorBody, ErrorCode } from './errors.js';
export { NAME_PATTERN, SCOPES, isScope } from './scopes.js';
export type { Scope } from './scopes.js';
