/**
 * Runs one namespaced route: authenticate → check namespace and scope → idempotency receipt →
 * handler, all in one transaction on the database clock. A denied request (401, 403, or another
 * namespace's object → 404) is written to the audit log in its own transaction, since the
 * request's own transaction rolls back.
 */
import { hash } from 'node:crypto';
import { canonicalize } from '@weave/json';
import { toJsonBody, toJsonText } from './json-text.js';
import type { JsonBody } from './json-text.js';
import type { JsonValue } from '@weave/json';
import { authenticate, bearerKey } from '../auth/authenticate.js';
import { writeAudit } from '../auth/audit.js';
import type { Principal } from '../auth/principal.js';
import { requireAnyScope } from '../auth/principal.js';
import { WeaveError, isWeaveError } from '../errors.js';
import { claimReceipt, completeReceipt } from '../auth/receipts.js';
import type { ReceiptKey } from '../auth/receipts.js';
import { TxGroup, eachInSavepoint } from '../store/tx-group.js';
import { withTx } from '../store/with-tx.js';
import type { Database, Tx } from '../store/with-tx.js';
import type { TaskNotifier } from '../pulse/task-notifier.js';
import type { Route, RouteSettings, SharedSetting } from './route.js';

export interface IncomingRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly body: JsonValue | undefined;
  readonly requestId: string;
  readonly authorization: string | undefined;
  readonly idempotencyKey: string | undefined;
  /** Aborted when the client disconnects (session routes stop waiting). */
  readonly signal?: AbortSignal;
}

export interface Outgoing {
  readonly status: number;
  /** JSON text, ready to send (in pieces for a large answer without a receipt). */
  readonly body: JsonBody;
  readonly replayed: boolean;
}

const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,200}$/;

/** What every request runs against: the database and this node's claim notifier. */
export interface RouteEnvironment {
  readonly database: Database;
  readonly notifier: TaskNotifier;
  readonly settings: RouteSettings;
}

interface Seen {
  principal?: Principal;
  crossNamespace?: boolean;
}

export async function runRoute(
  env: RouteEnvironment,
  route: Route,
  req: IncomingRequest,
): Promise<Outgoing> {
  const seen: Seen = {};
  try {
    if (route.session !== undefined) {
      return await runSession(env, route, req, seen);
    }
    if (req.idempotencyKey === undefined && route.grouped !== undefined) {
      return await runGrouped(env, route, req, seen);
    }
    const body = (tx: Tx) => transactionBody(env, route, req, seen, tx);
    // A request with an Idempotency-Key runs alone: two with the same key in one transaction
    // would see each other's unfinished receipt instead of waiting for it.
    return req.idempotencyKey === undefined && route.shared !== undefined
      ? await sharedGroupOf(env.database, route.shared).submit(body)
      : await withTx(env.database, body);
  } catch (e: unknown) {
    if (isDenial(e, seen.crossNamespace === true)) {
      await auditDenial(env.database, e, { route, req, principal: seen.principal });
    }
    throw e;
  }
}

async function authorize(tx: Tx, route: Route, req: IncomingRequest, seen: Seen) {
  const { scope } = route.contract;
  const principal = await authenticate(tx, bearerKey(req.authorization));
  seen.principal = principal;
  if (principal.namespaceName !== req.params.ns) {
    seen.crossNamespace = true;
    throw new WeaveError('not_found', `namespace ${req.params.ns ?? ''} not found`, {
      details: { path: '$.namespace' },
    });
  }
  requireAnyScope(principal, typeof scope === 'string' ? [scope] : scope);
  return principal;
}

function contextOf(env: RouteEnvironment, req: IncomingRequest, principal: Principal) {
  return { principal, ...requestContext(env, req) };
}

/** What every handler sees of the request and the node, before it is known who sent it. */
function requestContext(env: RouteEnvironment, req: IncomingRequest) {
  return {
    params: req.params,
    query: req.query,
    requestId: req.requestId,
    notifier: env.notifier,
    settings: env.settings,
  };
}

/** What the handlers that open their own transactions (session, grouped) get beside it. */
function outsideTransaction(env: RouteEnvironment, req: IncomingRequest) {
  return { database: env.database, signal: req.signal ?? new AbortController().signal };
}

async function runSession(env: RouteEnvironment, route: Route, req: IncomingRequest, seen: Seen) {
  const principal = await withTx(env.database, (tx) => authorize(tx, route, req, seen));
  if (route.session === undefined) {
    throw new Error(`route ${route.contract.path} has no session handler`);
  }
  const input = route.parse(req.body);
  const result = await route.session(
    { ...contextOf(env, req, principal), ...outsideTransaction(env, req) },
    input,
  );
  return { status: statusOf(route, result.status), body: toJsonBody(result.body), replayed: false };
}

/** Grouped mode (route.ts `GroupedContext`): authorization and the body read happen in `admit`. */
async function runGrouped(env: RouteEnvironment, route: Route, req: IncomingRequest, seen: Seen) {
  if (route.grouped === undefined) {
    throw new Error(`route ${route.contract.path} has no grouped handler`);
  }
  const result = await route.grouped({
    ...requestContext(env, req),
    ...outsideTransaction(env, req),
    unchecked: req.body,
    async admit<I>(tx: Tx) {
      const principal = await authorize(tx, route, req, seen);
      return { principal, input: route.parse(req.body) as I };
    },
  });
  return { status: statusOf(route, result.status), body: toJsonBody(result.body), replayed: false };
}

const sharedGroups = new WeakMap<
  Database,
  Map<number, TxGroup<(tx: Tx) => Promise<Outgoing>, Outgoing>>
>();

/**
 * This node's group for `shared` routes of one limit (submits, Starts, the single-task worker
 * calls): requests that arrive while one such transaction runs share the next, each under its
 * own savepoint (store/tx-group.ts), so a refused request leaves nothing and the others commit.
 */
function sharedGroupOf(database: Database, setting: SharedSetting) {
  let groups = sharedGroups.get(database);
  if (groups === undefined) {
    groups = new Map();
    sharedGroups.set(database, groups);
  }
  let group = groups.get(setting.maxRequests);
  if (group === undefined) {
    group = new TxGroup<(tx: Tx) => Promise<Outgoing>, Outgoing>(
      database,
      (tx, bodies) => eachInSavepoint(tx, bodies, (inner, body) => body(inner)),
      {
        name: setting.name,
        maxItems: setting.maxRequests,
        maxInFlight: database.dialect.name === 'sqlite' ? 1 : 2,
      },
    );
    groups.set(setting.maxRequests, group);
  }
  return group;
}

async function transactionBody(
  env: RouteEnvironment,
  route: Route,
  req: IncomingRequest,
  seen: Seen,
  tx: Tx,
): Promise<Outgoing> {
  const principal = await authorize(tx, route, req, seen);
  const input = route.parse(req.body);
  const receipt = receiptKey(route, req, principal);
  if (receipt !== undefined) {
    const claim = await claimReceipt(tx, receipt);
    if (claim.kind === 'replay') {
      await route.checkReplay?.({ ...contextOf(env, req, principal), tx }, claim.response.body);
      return { ...claim.response, replayed: true };
    }
  }
  if (route.handle === undefined) {
    throw new Error(`route ${route.contract.path} has no handler`);
  }
  const result = await route.handle({ ...contextOf(env, req, principal), tx }, input);
  const body = toJsonText(result.body);
  const status = statusOf(route, result.status);
  if (receipt !== undefined) {
    const stored = result.replayBody === undefined ? body : toJsonText(result.replayBody);
    await completeReceipt(tx, receipt, { status, body: stored });
  }
  return { status, body, replayed: false };
}

/** The contract's status, or one of its declared other statuses (anything else is a bug). */
function statusOf(route: Route, status: number | undefined): number {
  const { contract } = route;
  if (status === undefined || status === contract.status) {
    return contract.status;
  }
  if (contract.otherStatuses?.[status as 200 | 201 | 202] === undefined) {
    throw new Error(`${contract.id} answered ${status}, which its contract does not declare`);
  }
  return status;
}

function receiptKey(
  route: Route,
  req: IncomingRequest,
  principal: Principal,
): ReceiptKey | undefined {
  const { operation } = route.contract;
  if (operation === undefined || req.idempotencyKey === undefined) {
    return undefined;
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(req.idempotencyKey)) {
    throw new WeaveError(
      'invalid_argument',
      'Idempotency-Key must be 1 to 200 printable ASCII characters',
      {
        details: { path: "$['Idempotency-Key']" },
      },
    );
  }
  const frozen = new Map<string, JsonValue>([
    ['params', new Map(Object.entries(req.params))],
    ['body', req.body ?? null],
  ]);
  return {
    namespaceId: principal.namespaceId,
    operation,
    key: req.idempotencyKey,
    digest: hash('sha256', canonicalize(frozen), 'hex'),
  };
}

function isDenial(e: unknown, crossNamespace: boolean): e is WeaveError {
  return (
    isWeaveError(e) &&
    (e.code === 'unauthenticated' ||
      e.code === 'permission_denied' ||
      (e.code === 'not_found' && crossNamespace))
  );
}

async function auditDenial(
  database: Database,
  error: WeaveError,
  context: { route: Route; req: IncomingRequest; principal: Principal | undefined },
): Promise<void> {
  const { route, req, principal } = context;
  const { namespace_id: knownNamespace, credential_id: knownCredential, ...rest } = error.details;
  const details = toJsonText({
    method: route.contract.method,
    route: route.contract.path,
    namespace: req.params.ns,
    ...rest,
  });
  await withTx(database, (tx) =>
    writeAudit(tx, {
      namespaceId:
        principal?.namespaceId ?? (typeof knownNamespace === 'string' ? knownNamespace : null),
      credentialId:
        principal?.credentialId ?? (typeof knownCredential === 'string' ? knownCredential : null),
      action: 'request.denied',
      outcome: 'denied',
      code: error.code,
      requestId: req.requestId,
      details,
    }),
  );
}
