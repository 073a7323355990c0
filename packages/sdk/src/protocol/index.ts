/**
 * `@weave/sdk/protocol`: the wire contract that the server and the SDK share — error codes and
 * their statuses, scopes, names, instants, and for every route its method, path, scope, body
 * and answer schemas (JSON Schema objects that carry their TypeScript types).
 */
export { ERROR_STATUS, isErrorCode, statusOf } from './errors.js';
export type { ErrorBody, ErrorCode } from './errors.js';
export { NAME_PATTERN, SCOPES, isScope } from './scopes.js';
export type { Scope } from './scopes.js';
export { TASK_STATUSES, isTaskStatus } from './task-states.js';
export type { TaskStatus } from './task-states.js';
export { formatInstant, parseInstant } from './instants.js';
export type { Micros } from './instants.js';
export {
  array,
  boolean,
  integer,
  json,
  literal,
  named,
  nullable,
  number,
  object,
  oneOf,
  optional,
  record,
  string,
} from './schema.js';
export type { Infer, ObjectType, Optional, Schema } from './schema.js';
export { defineRoute } from './contract.js';
export type { AnswerOf, BodyOf, HttpMethod, QueryOf, RouteContract } from './contract.js';
export {
  DURATION_PATTERN,
  Duration,
  ErrorAnswer,
  ErrorDetail,
  ID_PATTERN,
  Id,
  Instant,
  Name,
  PageQuery,
  Payload,
  Revision,
  page,
} from './common.js';
export * as admin from './admin.js';
export * as controls from './controls.js';
export * as instances from './instances.js';
export * as operations from './operations.js';
export * as orbit from './orbit.js';
export * as recovery from './recovery.js';
export * as schedules from './schedules.js';
export * as signals from './signals.js';
export * as tasks from './tasks.js';
export * as workers from './workers.js';
export * as workflows from './workflows.js';
export { ROUTES } from './routes.js';
