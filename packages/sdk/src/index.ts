/**
 * @weave/sdk: the client SDK of Weave. Depends only on @weave/json and, for HTTP, `node:http` on
 * Node (node/index.ts, the package's `node` entry) or the global `fetch` elsewhere.
 * The client, the task `Worker`, webhook verification and `defineWorkflow`, a typed builder of
 * workflow definitions (docs/sdk.md "Defining workflows in TypeScript").
 *
 * @example
 * import { WeaveClient } from '@weave/sdk';
 * const client = new WeaveClient({ url: 'http://127.0.0.1:8420', namespace: 'dev', apiKey: process.env.WEAVE_KEY! });
 * console.log(await client.listQueues());
 */
export { WeaveClient } from './client.js';
export type { ClientOptions, RawResponse, RequestOptions } from './client.js';
export { WeaveApiError, isWeaveApiError } from './api-error.js';
export { ResultsClient } from './results.js';
export { WorkflowsClient } from './workflows.js';
export { InstancesClient } from './instances.js';
export type { InstanceListFilter, SignalInstanceOptions, StartOptions } from './instances.js';
export { OperationsClient } from './operations.js';
export type { CreateOperationOptions, OperationListOptions } from './operations.js';
export { SignalsClient } from './signals.js';
export type { SendSignalOptions } from './signals.js';
export type { ReadOptions, SubscribeOptions } from './results.js';
export { Worker } from './worker.js';
export type { StopSignal, TaskContext, TaskHandler, WorkerOptions } from './worker.js';
export { NonRetryableError } from './worker-errors.js';
export { WebhookSignatureError, verifyWebhookSignature } from './webhook-signature.js';
export type { VerifyWebhookOptions, WebhookSignatureErrorCode } from './webhook-signature.js';
export { defineWorkflow, isWorkflowHandle } from './define-workflow.js';
export type {
  InputOf,
  InputSchema,
  OutputOf,
  SchemaType,
  WorkflowDefinition,
  WorkflowHandle,
  WorkflowOptions,
} from './define-workflow.js';
export { branch, parallel, poll, signal, task, timer, when } from './define-steps.js';
export type {
  BranchCase,
  BranchOptions,
  BranchStep,
  ClassValue,
  Classifier,
  Duration,
  FinalSignal,
  ParallelOptions,
  ParallelStep,
  PollOptions,
  PollStep,
  RetryOptions,
  SignalOptions,
  SignalStep,
  Step,
  Steps,
  TaskOptions,
  TaskStep,
  TimerOptions,
  TimerStep,
} from './define-steps.js';
export { and, eq, exists, ge, gt, isIn, isNull, le, lt, ne, not, or } from './define-conditions.js';
export type { Condition } from './define-conditions.js';
export { literal, num, ref } from './define-values.js';
export type { PathSegment, Reference, StepReference, Value } from './define-values.js';
export { toPlain } from './plain.js';
export type { Plain } from './plain.js';
export type {
  Application,
  BatchCompletionAnswer,
  BatchCompletionRequest,
  ClaimRequest,
  ClaimedTask,
  Completion,
  Credential,
  CreatedCredential,
  CreateScheduleInput,
  CreateStreamInput,
  CreateSubscriptionInput,
  Delivery,
  EventPage,
  HeartbeatAnswer,
  Instance,
  InstanceStatus,
  Page,
  Queue,
  QueueWithCounts,
  ResultEvent,
  RetryPolicy,
  RetryPolicyInput,
  ReviewRequest,
  Schedule,
  ScheduledTaskInput,
  Stream,
  SubmitTaskInput,
  Subscription,
  Task,
  TaskEvent,
  TaskReceipt,
  TaskSource,
  TaskStatus,
  Workflow,
  WorkflowVersion,
  WorkflowVersionSummary,
} from './types.js';
export { ERROR_STATUS, SCOPES, TASK_STATUSES } from './protocol/index.js';
export type { ErrorCode, Scope } from './protocol/index.js';
