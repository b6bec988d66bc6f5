import { randomUUID } from 'node:crypto';
import { isDisplaySafeIdentifier, isWellFormedIdentifier, MAX_PROVIDER_ID_LENGTH } from '@toolseal/adapter-core';
import {
  StoreInputError,
  systemClock,
  type ClaimInput,
  type Clock,
  type FenceFailure,
  type FindCompletedInput,
  type FindUnresolvedInput,
  type IdempotencyStore,
  type ResultInput,
  type StoredResult,
} from '@toolseal/audit';
import type {
  CallContext,
  Delivery,
  ErrorCode,
  ErrorReason,
  JsonObject,
  JsonValue,
  PrincipalContext,
  RawArguments,
  Sha256Hex,
  ToolCall,
} from '@toolseal/contracts';
import { canonicalize, isSha256Hex, type Digester } from '@toolseal/digests';
import { ERROR_CATALOG, makeError } from '@toolseal/errors';
import { ajvErrorsToReasons, isWellFormedText } from '@toolseal/guard';
import { copyPrincipal, fitsPrincipalIdLength, MAX_PRINCIPAL_ID_LENGTH, MAX_PRINCIPAL_ROLES, type ProposalDecisionRecord, type ReadyForReview } from '@toolseal/proposal';
import {
  createResultVerifier,
  providerContextFieldOutsideSchema,
  sealResult,
  type InputFieldTemplates,
  type OutputViolation,
  type SealResultOutput,
  type SealSubject,
  type TrustedContext,
} from '@toolseal/result';
import {
  approvalAuditRecord,
  checkApprovals,
  INTENT_KEY_PREFIX,
  latestApprovalFor,
  matchApproval,
  type Approval,
  type ApprovalRequest,
} from './approval.js';
import { CallAbort, withSignal } from './call-abort.js';
import { checkDuration, compileDispatcherTools, type CompiledTool } from './compile-dispatcher-tools.js';
import type {
  AuditPosition,
  DispatchContext,
  DispatchedCall,
  DispatchedTurn,
  Dispatcher,
  DispatcherOptions,
  DispatchGate,
} from './dispatch-types.js';
import { canonicalReasons, declaresEveryField, projectInputReasons, projectShapeReasons } from './declared-reasons.js';
import { DispatcherClock } from './dispatcher-clock.js';
import { DispatcherConfigError } from './dispatcher-config-error.js';
import {
  EARLIER_ATTEMPT_LOOKUP_LIMIT,
  NO_EARLIER_ATTEMPTS,
  readEarlierAttempts,
  readIntentAttempts,
  readCompletedAttempts,
  readCompletedAttemptOfRequest,
  NOT_RUN,
  viewAttempt,
  type AttemptView,
  type EarlierAttempts,
  type LookupFailure,
} from './earlier-attempts.js';
import type { HandlerInput, StatusQueryInput, ToolInvocation, TrustedCheckOutcome } from './dispatcher-tool.js';
import { RateLimiter, checkRateLimit } from './rate-limiter.js';
import { readArguments } from './read-arguments.js';
import { readHandlerOutcome, readStatusOutcome, type ReadOutcome } from './read-handler-outcome.js';
import { fenceFailureOf } from './fence-failure.js';
import { componentCopyOf, readProposalDecision, type ProposalErrorCode } from './read-proposal-decision.js';
import { readStoredResult, sealedUnderOtherRevisions } from './read-stored-result.js';
import { runWithDeadline, type DeadlineRun } from './run-with-deadline.js';
import { StoreWaitEnded, StoreWatchdog } from './store-watchdog.js';
import { TurnDigester } from './turn-digester.js';

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_DEADLINE_MS = 30_000;
const DEFAULT_LEASE_MARGIN_MS = 5_000;
const DEFAULT_STORE_TIMEOUT_MS = 10_000;
/**
 * Suggested wait when the idempotency store confirmed that the key is free again (a release after
 * a lost `markStarted` answer) and nothing started.
 */
const STORE_RETRY_AFTER_MS = 1_000;
/** The catalog's largest `retry_after_ms` for TIMEOUT_BEFORE_EXECUTE (a claim's lease may be longer). */
const TIMEOUT_RETRY_AFTER = ERROR_CATALOG.TIMEOUT_BEFORE_EXECUTE.retry_after;
const MAX_TIMEOUT_RETRY_AFTER_MS = TIMEOUT_RETRY_AFTER.policy === 'forbidden' ? 0 : TIMEOUT_RETRY_AFTER.max_ms;
const MAX_IDENTIFIER = 128;
/**
 * The digest domain of the idempotency key of a write without approval (`intent-<digest>`): tenant,
 * subject, tool and arguments, and nothing about the contract's revisions.
 */
const INTENT_KEY_DOMAIN = 'toolseal.dispatcher.intent_key.v1';
/** Principal references kept across turns (the same principals call again and again). */
const PRINCIPAL_REF_CACHE_SIZE = 1_024;
/**
 * Refusals of a write's trusted checks or proposal gate that its own earlier attempt may have
 * caused: a committed write consumes the eligibility it was judged on (the handler enforces the
 * state transition), so the retry of that very request meets RULE_REJECTED or STATE_CHANGED. Such
 * a refusal is answered only once no earlier attempt of the request may have run (README,
 * "Approvals and earlier attempts"). NOT_FOUND (access) is never among them: it answers at once,
 * with no lookup. FACTS_UNAVAILABLE neither: no verdict was reached (the facts that decide access
 * may be what could not be read), and a retry once they are back meets the verdict.
 */
const REFUSALS_AN_EARLIER_WRITE_MAY_CAUSE: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['RULE_REJECTED', 'STATE_CHANGED']);

/**
 * The key an earlier attempt of a write would have run under, as far as the call can tell: an
 * approval's (live, or `expired`: the latest the host still presents for the request), or the
 * intent key of a tool without approval (`approval` null).
 */
interface KnownKey {
  readonly key: string;
  readonly approval: Approval | null;
  readonly expired: boolean;
}

/** The key a claim holds for this call, with its fencing token. */
interface Fence {
  readonly key: string;
  readonly fencing_token: number;
}

/** What claiming a key came to: the key is this call's to run under, or the call is answered. */
type ClaimStep = { kind: 'claimed'; fence: Fence } | { kind: 'settled'; answer: DispatchedCall };

async function settled(answer: Promise<DispatchedCall>): Promise<ClaimStep> {
  return { kind: 'settled', answer: await answer };
}

/** The trusted state of one turn, shared by its calls. */
interface Turn {
  readonly principal: PrincipalContext;
  readonly digester: TurnDigester;
  readonly approvals: readonly Approval[];
  readonly startedAt: number;
  readonly deadline: number;
  /** The calls still running, for the host's abort; `null` when the turn has no signal. */
  readonly aborts: Set<CallAbort> | null;
  readonly signal: AbortSignal | undefined;
  /** The trusted context each call was sealed under, by call id: what `verify` recomputes from. */
  readonly trusted: Map<string, TrustedContext>;
}

/** What one call accumulates on its way through the gates. */
interface CallState {
  /** The private frozen copy `checkCalls` made: never the host's object. */
  readonly call: ToolCall;
  readonly context: CallContext;
  arguments: JsonValue | null;
  approvalRequest: ApprovalRequest | null;
  decisionRecord: ProposalDecisionRecord | null;
  violations: readonly OutputViolation[];
  approval: JsonObject | null;
  /** When the live approval this write runs under expires (epoch ms); infinity without one. */
  approvalExpiresAt: number;
  replayOf: string | null;
  notes: string[];
  /**
   * `request_sha256` of the call's latest seal, taken from `sealResult`'s output before anything
   * else sees it: it derives from the trusted principal, contract and validated arguments only, so
   * `verify` reuses it instead of hashing them again.
   */
  requestSha256: Sha256Hex | null;
  /**
   * A write's intent digest (`digestTagged(INTENT_KEY_DOMAIN, { tenant_id, subject_id, tool_name,
   * arguments })`: no contract revisions), stored with every claim so that an attempt made under
   * other revisions can be found (`findIntentConflict`); `null` for reads.
   */
  intentSha256: Sha256Hex | null;
  /**
   * Whether the tool's handler (or status query) ran for this call: from then on, an audit entry
   * is worth a second, minimal append when the full one fails.
   */
  executed: boolean;
}

function errorSubject(
  code: ErrorCode,
  options: { retryAfterMs?: number; reasons?: readonly ErrorReason[] } = {},
): SealSubject {
  const subject: SealSubject = { kind: 'error', code };
  if (options.retryAfterMs !== undefined) subject.retryAfterMs = options.retryAfterMs;
  if (options.reasons !== undefined && options.reasons.length > 0) subject.reasons = options.reasons;
  return subject;
}

/**
 * The bound preview a person is shown for an APPROVAL_REQUIRED or APPROVAL_INVALID answer: the
 * request digest an approval must name, with what it covers.
 */
function approvalRequestOf(tool: CompiledTool, request_sha256: Sha256Hex, args: JsonObject): ApprovalRequest {
  return Object.freeze({
    request_sha256,
    tool_name: tool.name,
    arguments: args,
    policy_revision: tool.registered.contract.policy_revision,
  });
}

function isPlainObject(value: JsonValue | null): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every top-level key `createDispatcher` accepts: exactly the keys of `DispatcherOptions`. The
 * `satisfies` refuses a name that is not an option, and `EVERY_OPTION_LISTED` below fails to
 * compile, naming the key, when `DispatcherOptions` gains an option this list lacks: the list
 * cannot drift from the type.
 */
const DISPATCHER_OPTION_KEYS = [
  'registry',
  'tools',
  'stores',
  'digester',
  'clock',
  'operationId',
  'owner',
  'rateLimit',
  'leaseMs',
  'defaultDeadlineMs',
  'leaseMarginMs',
  'storeTimeoutMs',
  'acceptUnkeyedAuditChain',
] as const satisfies readonly (keyof DispatcherOptions)[];
type UnlistedOption = Exclude<keyof DispatcherOptions, (typeof DISPATCHER_OPTION_KEYS)[number]>;
/** Compile-time only: `true` type-checks exactly when no key of `DispatcherOptions` is unlisted. */
const EVERY_OPTION_LISTED: [UnlistedOption] extends [never] ? true : { unlisted: UnlistedOption } = true;
const KNOWN_OPTIONS: ReadonlySet<string> = new Set(DISPATCHER_OPTION_KEYS);

/**
 * An option the dispatcher does not know is a mistake (a misspelt `storeTimeoutMS` would silently
 * leave the default): refused at start-up, naming the key, as unknown keys of a tool are.
 */
function checkOptionKeys(options: object): void {
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new DispatcherConfigError(null, `unknown option ${JSON.stringify(key)}`);
  }
}

/** The stores, read once from the options: what is checked is what is used. */
function checkStores(given: unknown): DispatcherOptions['stores'] {
  const stores = given as Partial<DispatcherOptions['stores']> | null | undefined;
  const auditLog = stores?.auditLog as unknown as Record<string, unknown> | undefined;
  const idempotency = stores?.idempotencyStore as unknown as Record<string, unknown> | undefined;
  if (typeof auditLog !== 'object' || auditLog === null || typeof auditLog['append'] !== 'function') {
    throw new DispatcherConfigError(null, 'stores.auditLog must be an AuditLog (@toolseal/audit)');
  }
  const required = ['claim', 'markStarted', 'complete', 'release', 'markUnknown', 'reconcile', 'get'];
  if (typeof idempotency !== 'object' || idempotency === null || !required.every((method) => typeof idempotency[method] === 'function')) {
    throw new DispatcherConfigError(null, 'stores.idempotencyStore must be an IdempotencyStore (@toolseal/audit)');
  }
  // Optional (a store may lack them), but present means usable.
  for (const method of ['findUnresolved', 'findCompleted']) {
    if (idempotency[method] !== undefined && typeof idempotency[method] !== 'function') {
      throw new DispatcherConfigError(null, `stores.idempotencyStore.${method} must be a function when present`);
    }
  }
  return { auditLog: auditLog as unknown as DispatcherOptions['stores']['auditLog'], idempotencyStore: idempotency as unknown as DispatcherOptions['stores']['idempotencyStore'] };
}

/** The host's clock, checked at start-up: it must read epoch milliseconds now (see DispatcherClock). */
function openClock(clock: Clock): DispatcherClock {
  if (typeof clock.now !== 'function') throw new DispatcherConfigError(null, 'clock must have now()');
  try {
    return new DispatcherClock(clock);
  } catch {
    throw new DispatcherConfigError(null, 'clock.now() must return epoch milliseconds (a non-negative safe integer)');
  }
}

/**
 * A keyed digester with an audit log that says its chain is not keyed: the host meant the whole
 * record to be keyed, and a chain anyone with write access to the store can recompute is not
 * (the durable stores default to an unkeyed chain unless given the digester). A store that does
 * not say (`keyed` absent) is taken at its word.
 */
function checkChainKeying(auditLog: unknown, digester: Digester, acceptUnkeyed: unknown): void {
  if (acceptUnkeyed !== undefined && typeof acceptUnkeyed !== 'boolean') {
    throw new DispatcherConfigError(null, 'acceptUnkeyedAuditChain must be a boolean');
  }
  if (acceptUnkeyed !== true && digester.keyed === true && (auditLog as { keyed?: unknown }).keyed === false) {
    throw new DispatcherConfigError(
      null,
      'digester is keyed but stores.auditLog chains its entries unkeyed: open the stores with the same digester ' +
        '(a new log: an existing unkeyed chain no longer verifies under a key), or set acceptUnkeyedAuditChain: true to keep it',
    );
  }
}

function checkDigester(digester: unknown): Digester {
  const candidate = digester as Partial<Record<keyof Digester, unknown>> | undefined;
  for (const method of ['principalRef', 'requestDigest', 'resultDigestFromCanonical', 'callBindingDigest'] as const) {
    if (candidate === undefined || candidate === null || typeof candidate[method] !== 'function') {
      throw new DispatcherConfigError(null, 'digester must be a Digester (@toolseal/digests createDigester)');
    }
  }
  return digester as Digester;
}

function checkPrincipal(value: unknown): PrincipalContext {
  if (typeof value !== 'object' || value === null) throw new TypeError('dispatch: context.principal is required');
  const { tenant_id, subject_id, roles } = value as Partial<PrincipalContext>;
  for (const [name, field] of [
    ['tenant_id', tenant_id],
    ['subject_id', subject_id],
  ] as const) {
    // A lone surrogate has no canonical JSON form: the principal reference and every digest
    // binding it would throw later, in the middle of a call, instead of refusing the turn here.
    if (typeof field !== 'string' || !fitsPrincipalIdLength(field) || !isWellFormedText(field)) {
      throw new TypeError(`dispatch: context.principal.${name} must be 1 to ${MAX_PRINCIPAL_ID_LENGTH} characters without lone surrogates`);
    }
  }
  const rolesError = `dispatch: context.principal.roles must be at most ${MAX_PRINCIPAL_ROLES} strings without lone surrogates`;
  if (!Array.isArray(roles)) throw new TypeError(rolesError);
  // Length and each role read once, into the copy that is checked and kept (as for calls).
  const count = roles.length;
  if (count > MAX_PRINCIPAL_ROLES) throw new TypeError(rolesError);
  const copiedRoles: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const role: unknown = roles[index];
    if (typeof role !== 'string' || !isWellFormedText(role)) throw new TypeError(rolesError);
    copiedRoles.push(role);
  }
  // A private, deeply frozen copy: nothing the handlers receive can change the turn's principal,
  // nor the host's own object. It keeps the host's other fields (a `suspended` flag a check reads,
  // say), each copied as JSON data, as the proposal validator's copy does: dropping one turns
  // "deny if suspended" into "allow". Only a plain object is a principal (`copyPrincipal`).
  return copyPrincipal('dispatch: context.principal', value, { tenant_id: tenant_id as string, subject_id: subject_id as string, roles: copiedRoles });
}

/** The identifier fields of a `ToolCall` (everything except `arguments`). */
type CallField = 'provider' | 'api_family' | 'adapter_revision' | 'response_id' | 'call_id' | 'tool_name';

/**
 * Reads one identifier field of a call, once, and checks it: one the adapters accept
 * (`isWellFormedIdentifier` of `@toolseal/adapter-core`: no control character, no lone surrogate,
 * at most 256 characters, which is at least as strict as what the audit stores accept; for what
 * the provider chose, the response id, call id and tool name, `isDisplaySafeIdentifier`: printable
 * ASCII without the space, so that no invisible or other-script character makes one read as
 * another in the audit log).
 */
function callField(record: Record<string, unknown>, field: CallField): string {
  const value = record[field];
  // tool_name may be any name the model chose (an empty one is sealed as UNKNOWN_TOOL).
  if (field === 'tool_name' && value === '') return value;
  const fromProvider = field === 'response_id' || field === 'call_id' || field === 'tool_name';
  const wellFormed = fromProvider ? isDisplaySafeIdentifier(value, MAX_PROVIDER_ID_LENGTH) : isWellFormedIdentifier(value, MAX_PROVIDER_ID_LENGTH);
  if (!wellFormed) {
    throw new TypeError(
      `dispatch: call.${field} must be 1 to ${MAX_PROVIDER_ID_LENGTH} ${fromProvider ? 'printable ASCII characters without spaces' : 'characters without control characters or lone surrogates'} (calls come from adapter.parseToolCalls)`,
    );
  }
  return value as string;
}

/**
 * Checks the calls of a turn before any gate runs and returns private, frozen, plain copies of
 * them: every `ToolCall` field is read exactly once, so a getter (or a proxy) cannot pass the check
 * with one id and later answer another, say a lone surrogate no digest or store accepts, and the
 * host cannot change a call while it runs. Only the copies are used afterwards. A call whose ids
 * could not be audited never runs. Calls come from `adapter.parseToolCalls`, so a bad one is a
 * host bug and throws (`dispatch` rejects with the `TypeError`), for the whole turn, before anything
 * executes. The one exception is an empty `tool_name`, which the model chose: UNKNOWN_TOOL.
 */
function checkCalls(calls: unknown): readonly ToolCall[] {
  if (!Array.isArray(calls)) throw new TypeError('dispatch: calls must be an array of ToolCall');
  const seen = new Set<string>();
  const copies: ToolCall[] = [];
  const count = calls.length;
  for (let index = 0; index < count; index += 1) {
    const call: unknown = calls[index];
    if (typeof call !== 'object' || call === null) throw new TypeError('dispatch: every call must be a ToolCall');
    const record = call as Record<string, unknown>;
    // In the order of the literal, each field read once. `arguments` stays the host's raw value:
    // the guard reads it (each member once) and keeps a private frozen copy of what it judged.
    const copy: ToolCall = Object.freeze({
      provider: callField(record, 'provider'),
      api_family: callField(record, 'api_family'),
      adapter_revision: callField(record, 'adapter_revision'),
      response_id: callField(record, 'response_id'),
      call_id: callField(record, 'call_id'),
      tool_name: callField(record, 'tool_name'),
      arguments: record['arguments'] as RawArguments,
    });
    // What the protected audit holds of the call, checked as sealing would check it, but before
    // any gate: sealing refuses such a call only once its handler has run.
    const outside = providerContextFieldOutsideSchema(copy);
    if (outside !== null) {
      throw new TypeError(
        `dispatch: call.${outside} breaks the protected_audit schema (provider and api_family lowercase patterns, ids of 1 to 256 code points, adapter_revision of 1 to 64)`,
      );
    }
    if (seen.has(copy.call_id)) throw new TypeError('dispatch: a call id appears twice in one turn');
    seen.add(copy.call_id);
    copies.push(copy);
  }
  return copies;
}

/**
 * Creates the pipeline of one host (this package's README, "Gates, in order"). Everything that can
 * be decided before the first call is decided here: every tool is paired with its registry entry,
 * every option is checked (an unknown key included), and a misconfiguration throws a
 * `DispatcherConfigError` with a message naming the problem, never at the first call.
 *
 * Per call, in order: registry (UNKNOWN_TOOL) → rate limit (RATE_LIMIT, per principal and tool) →
 * guard (INVALID_ARGUMENTS) → input contract (INVALID_ARGUMENTS with field reasons) → trusted
 * checks and the proposal gate (NOT_FOUND, RULE_REJECTED, FACTS_UNAVAILABLE, STATE_CHANGED) →
 * writes: approval bound to `request_sha256` (APPROVAL_REQUIRED with a preview, APPROVAL_INVALID;
 * without a live one, an earlier attempt of the request is answered from, never written again)
 * → idempotency claim (replay, IDEMPOTENCY_CONFLICT or, under an intent key, STATUS_CONFLICT,
 * OUTCOME_UNKNOWN; a record whose outcome is
 * unknown goes to the status query instead: receipt_reconciled, STATUS_CONFLICT, OUTCOME_UNKNOWN;
 * an unresolved attempt of the request under another key answers instead) → proposal
 * recheck → deadline (TIMEOUT_BEFORE_EXECUTE) → handler under the deadline (OUTCOME_UNKNOWN for a
 * write that does not report back, TOOL_ERROR) → output contract (OUTPUT_CONTRACT_VIOLATION) →
 * seal → idempotency completion (TOOL_ERROR if the store can never hold it) → audit append.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  if (typeof options !== 'object' || options === null) throw new DispatcherConfigError(null, 'options are required');
  checkOptionKeys(options);
  const { registry } = options;
  if (typeof registry !== 'object' || registry === null || typeof registry.get !== 'function' || !Array.isArray(registry.toolNames)) {
    throw new DispatcherConfigError(null, 'registry must be a ToolRegistry (@toolseal/result createToolRegistry)');
  }
  const stores = checkStores(options.stores);
  const digester = checkDigester(options.digester);
  checkChainKeying(stores.auditLog, digester, options.acceptUnkeyedAuditChain);
  const dispatcherClock = openClock(options.clock ?? systemClock);
  const customOperationId = options.operationId ?? undefined;
  if (customOperationId !== undefined && typeof customOperationId !== 'function') {
    throw new DispatcherConfigError(null, 'operationId must be a function');
  }
  const owner = options.owner ?? `toolseal-${randomUUID()}`;
  if (!isWellFormedIdentifier(owner, MAX_IDENTIFIER)) {
    throw new DispatcherConfigError(null, `owner must be 1 to ${MAX_IDENTIFIER} characters without control characters`);
  }
  const leaseMs = checkDuration(null, 'leaseMs', options.leaseMs, DEFAULT_LEASE_MS);
  const leaseMarginMs = checkDuration(null, 'leaseMarginMs', options.leaseMarginMs, DEFAULT_LEASE_MARGIN_MS);
  const defaultDeadlineMs = checkDuration(null, 'defaultDeadlineMs', options.defaultDeadlineMs, DEFAULT_DEADLINE_MS);
  const storeTimeoutMs = checkDuration(null, 'storeTimeoutMs', options.storeTimeoutMs, DEFAULT_STORE_TIMEOUT_MS);
  const defaultRateLimit = options.rateLimit === undefined ? null : checkRateLimit(null, 'rateLimit', options.rateLimit);
  const tools = compileDispatcherTools(registry, options.tools, { deadlineMs: defaultDeadlineMs, rateLimit: defaultRateLimit });
  const { auditLog, idempotencyStore } = stores;
  const limiter = new RateLimiter();
  // Every store call the dispatcher awaits is bounded by storeTimeoutMs, with one timer for all.
  const watchdog = new StoreWatchdog(storeTimeoutMs);
  /**
   * The wait after a claim that failed or timed out: the claim may have applied with its answer
   * lost, and then the key is held until its lease runs out (bounded by what the catalog allows).
   */
  const claimRetryAfterMs = Math.min(leaseMs, MAX_TIMEOUT_RETRY_AFTER_MS);
  const principalRefs = new Map<string, Sha256Hex>();

  /** The principal of the latest turn: the most recent cache entry, reused without touching the cache. */
  let latest: { tenant_id: string; subject_id: string; ref: Sha256Hex } | null = null;

  /** `digester.principalRef(principal)`, computed once per principal and kept in a small LRU cache. */
  function principalRefOf(principal: PrincipalContext): Sha256Hex {
    if (latest !== null && latest.tenant_id === principal.tenant_id && latest.subject_id === principal.subject_id) {
      return latest.ref;
    }
    const key = `${principal.tenant_id.length}:${principal.tenant_id}${principal.subject_id}`;
    let ref = principalRefs.get(key);
    if (ref === undefined) {
      ref = digester.principalRef({ tenant_id: principal.tenant_id, subject_id: principal.subject_id });
      if (principalRefs.size >= PRINCIPAL_REF_CACHE_SIZE) {
        const oldest = principalRefs.keys().next();
        if (oldest.done !== true) principalRefs.delete(oldest.value);
      }
    } else {
      principalRefs.delete(key);
    }
    principalRefs.set(key, ref);
    latest = { tenant_id: principal.tenant_id, subject_id: principal.subject_id, ref };
    return ref;
  }
  // Never throw: a clock that fails after start-up answers its last good reading (DispatcherClock).
  const now = (): number => dispatcherClock.now();
  const nowDate = (): Date => dispatcherClock.date();

  /**
   * What is left of a call's time, for a timer or a lease: never more than the call's own budget
   * (`deadline - turn start`), however far the clock was set back meanwhile, and never negative.
   */
  function remainingMs(turn: Turn, deadline: number): number {
    return Math.max(0, Math.min(deadline - now(), deadline - turn.startedAt));
  }

  function nextOperationId(): string {
    // The default needs no check: a UUID is always 36 plain characters.
    if (customOperationId === undefined) return randomUUID();
    const id: unknown = customOperationId();
    if (!isWellFormedIdentifier(id, MAX_IDENTIFIER)) {
      throw new TypeError(`operationId() must return 1 to ${MAX_IDENTIFIER} characters without control characters`);
    }
    return id;
  }

  // ------------------------------------------------------------------------------ sealing

  function seal(turn: Turn, state: CallState, subject: SealSubject, delivery: Delivery): SealResultOutput {
    const output = sealResult({
      registry,
      tool_name: state.call.tool_name,
      principal: turn.principal,
      call: state.context,
      arguments: state.arguments,
      subject,
      execution: { delivery },
      now: nowDate,
      digester: turn.digester,
    });
    state.requestSha256 = output.sealed.protected_audit.binding.request_sha256;
    return output;
  }

  /** Appends the audit entry and builds the call's answer. No result reaches the model unaudited. */
  async function record(turn: Turn, state: CallState, output: SealResultOutput, gate: DispatchGate): Promise<DispatchedCall> {
    const { sealed } = output;
    const trusted: TrustedContext = {
      registry,
      tool_name: state.call.tool_name,
      principal: turn.principal,
      call: { ...state.context },
      arguments: state.arguments,
      digester: turn.digester,
      // The adapter's verification refuses an observed_at in the future, as the seal does.
      now: nowDate,
      // Both derive from trusted inputs only (never read back from a package): computed once.
      principal_ref: turn.digester.principalRefValue,
    };
    if (state.requestSha256 !== null) trusted.request_sha256 = state.requestSha256;
    // The frozen projections and their text: the adapter sends that text and verifies these objects.
    trusted.sealed = output;
    turn.trusted.set(state.call.call_id, trusted);
    const violations = output.violations.length > 0 ? output.violations : state.violations;
    // Optional members only when present: the body is canonicalized and hashed on every call.
    // Reading the protected projection's text composes it and remembers it beside the frozen
    // projection, so the append writes that text instead of walking the projection (about 1.5 µs a
    // call, net of composing the text).
    void output.canonical_protected_audit;
    const body: JsonObject = {
      gate,
      status: sealed.model_result.status,
      error_code: sealed.model_result.error?.code ?? null,
      delivery: sealed.model_result.execution.delivery,
      protected_audit: sealed.protected_audit as unknown as JsonObject,
    };
    // The name the model asked for, when it is not the registered tool's (bounded: model-chosen text).
    if (sealed.protected_audit.tool_contract.tool_name !== state.call.tool_name) {
      body['requested_tool'] = state.call.tool_name.slice(0, 256);
    }
    if (state.decisionRecord !== null) body['decision_record'] = state.decisionRecord as unknown as JsonObject;
    if (violations.length > 0) body['violations'] = violations.map(({ rule, path }) => ({ rule, path }));
    if (state.approval !== null) body['approval'] = state.approval;
    if (state.replayOf !== null) body['replay_of'] = state.replayOf;
    if (state.notes.length > 0) body['notes'] = state.notes;
    const answer = (appended: unknown, detail: AuditPosition['body']): DispatchedCall => {
      // An answer that does not name the entry (a store far outside its contract) shows nothing was
      // appended: taken as a throw, so the fallbacks below run.
      const entry = auditPositionOf(appended);
      if (entry === null) throw new TypeError('auditLog.append answered without a sequence and an entry hash');
      return answered(entry, detail);
    };
    const answered = (entry: { sequence: number; entry_hash: string }, detail: AuditPosition['body']): DispatchedCall => ({
      call_id: state.call.call_id,
      tool_name: state.call.tool_name,
      gate,
      sealed,
      canonical_model_result: output.canonical_model_result,
      approval_request: state.approvalRequest,
      decision_record: state.decisionRecord,
      violations,
      audit_entry: { sequence: entry.sequence, entry_hash: entry.entry_hash, body: detail },
    });
    // Bounded by storeTimeoutMs: an append that does not answer in time is one that threw.
    const append = (entryBody: JsonObject) =>
      watchdog.watch(() =>
        auditLog.append({
          kind: 'sealed_call',
          call_id: state.call.call_id,
          operation_id: state.context.operation_id,
          idempotency_key: state.context.idempotency_key,
          body: entryBody,
        }),
      );
    try {
      return answer(await append(body), 'full');
    } catch {
      if (state.executed) {
        // The handler ran: its effect must not go unaudited. Once more, with only what
        // reconciliation needs (small and bounded whatever the handler returned); the result it
        // binds by digest is the one the model gets.
        try {
          return answer(await append(minimalAuditBody(sealed, gate)), 'minimal');
        } catch {
          // Falls through to withholding.
        }
      }
      // The audit log refused or is down: the result is withheld from the model (TOOL_ERROR,
      // human review). A write's idempotency record still holds the real result for a replay.
      // The TOOL_ERROR is a new answer the dispatcher makes here, not the replay or the reconciled
      // receipt it replaces, so its delivery is `fresh` (spec 000: `execution.delivery` is "how
      // this delivery was obtained"; `receipt_reconciled` next to TOOL_ERROR and outcome `unknown`
      // would tell the model a status query reconciled a receipt it is not given), as for every
      // other error the dispatcher seals (`refuseUnrecordable` included).
      const withheld = seal(turn, state, errorSubject('TOOL_ERROR'), 'fresh');
      trusted.sealed = withheld;
      return {
        call_id: state.call.call_id,
        tool_name: state.call.tool_name,
        gate: 'audit',
        sealed: withheld.sealed,
        canonical_model_result: withheld.canonical_model_result,
        approval_request: state.approvalRequest,
        decision_record: state.decisionRecord,
        violations,
        audit_entry: null,
      };
    }
  }

  function refuse(
    turn: Turn,
    state: CallState,
    gate: DispatchGate,
    code: ErrorCode,
    options: { retryAfterMs?: number; reasons?: readonly ErrorReason[] } = {},
  ): Promise<DispatchedCall> {
    return record(turn, state, seal(turn, state, errorSubject(code, options), 'fresh'), gate);
  }

  // ------------------------------------------------------------------------------ trusted checks

  /** The check's answer, read without trusting it; synchronous when the check is. */
  function runCheck(
    turn: Turn,
    tool: CompiledTool,
    check: NonNullable<CompiledTool['check']>,
    invocation: ToolInvocation,
    abort: CallAbort,
  ): TrustedCheckOutcome | Promise<TrustedCheckOutcome> {
    const run = runWithDeadline(check, invocation, abort, remainingMs(turn, invocation.deadline));
    const read = (done: DeadlineRun): TrustedCheckOutcome => readCheckOutcome(done, tool.registered.inputFields, invocation.arguments);
    return run instanceof Promise ? run.then(read) : read(run);
  }

  /**
   * A refusal of the proposal gate. Shape reasons (INVALID_ARGUMENTS, about the model's arguments)
   * are cut to declared fields and to array indexes the arguments hold; a rule set's reasons must
   * name declared fields exactly, or the rule set is broken and the call holds (FACTS_UNAVAILABLE),
   * as for a trusted check. Either way they are the validator's: sealed deduplicated and in
   * canonical order (the decision record keeps them as the validator gave them).
   */
  function refuseProposal(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    gate: DispatchGate,
    error: { code: ProposalErrorCode; reasons: readonly ErrorReason[] },
  ): Promise<DispatchedCall> {
    const fields = tool.registered.inputFields;
    if (error.code === 'INVALID_ARGUMENTS') {
      return refuse(turn, state, gate, error.code, { reasons: canonicalReasons(projectShapeReasons(fields, error.reasons, state.arguments)) });
    }
    if (!declaresEveryField(fields, error.reasons, state.arguments)) {
      state.notes.push('proposal_reason_field_undeclared');
      return refuse(turn, state, gate, 'FACTS_UNAVAILABLE');
    }
    return refuse(turn, state, gate, error.code, { reasons: canonicalReasons(error.reasons) });
  }

  // ------------------------------------------------------------------------------ one call

  async function runCall(turn: Turn, call: ToolCall, operationId: string): Promise<DispatchedCall> {
    const context: CallContext = {
      provider: call.provider,
      api_family: call.api_family,
      response_id: call.response_id,
      call_id: call.call_id,
      adapter_revision: call.adapter_revision,
      operation_id: operationId,
      idempotency_key: null,
    };
    const state: CallState = {
      call,
      context,
      arguments: null,
      approvalRequest: null,
      decisionRecord: null,
      violations: [],
      approval: null,
      approvalExpiresAt: Number.POSITIVE_INFINITY,
      replayOf: null,
      notes: [],
      requestSha256: null,
      intentSha256: null,
      executed: false,
    };
    try {
      return await runGates(turn, state);
    } catch {
      // An exception no reader caught (a bug, or a host component or store answering far outside
      // its contract): this call alone answers TOOL_ERROR for a person to review, audited like any
      // other, and the turn's other calls keep their results. A write's record is left as it is:
      // a claim runs out on its own, a started one turns unknown and is never run again.
      state.notes.push('dispatcher_unexpected_error');
      return refuse(turn, state, 'internal', 'TOOL_ERROR');
    }
  }

  async function runGates(turn: Turn, state: CallState): Promise<DispatchedCall> {
    const { call } = state;

    // Registry.
    const tool = tools.get(call.tool_name);
    if (tool === undefined) return refuse(turn, state, 'registry', 'UNKNOWN_TOOL');

    // Rate limit: before any parsing or lookup, so a flood never reaches them.
    if (tool.rateLimit !== null) {
      const decision = limiter.take(`${turn.digester.principalRefValue}\u0000${tool.name}`, tool.rateLimit, now());
      if (!decision.ok) return refuse(turn, state, 'rate_limit', 'RATE_LIMIT', { retryAfterMs: decision.retryAfterMs });
    }

    // Guard, then the input contract.
    const read = readArguments(call.arguments as RawArguments, tool.argumentLimits);
    if (!read.ok) {
      const reasons = projectInputReasons(tool.registered.inputFields, [{ field: read.violation.path, rule: read.violation.rule }]);
      return refuse(turn, state, 'guard', 'INVALID_ARGUMENTS', { reasons });
    }
    state.arguments = read.value;
    const validateInput = tool.registered.validateInput;
    let conforms: boolean;
    try {
      conforms = validateInput(read.value);
    } catch {
      // A validator that throws instead of answering (the registry refuses the contracts it can tell
      // would, at start-up): nothing ran, and no verdict on the arguments was reached, so the call
      // is held (not_started), never reported as a tool error whose outcome is unknown.
      return refuse(turn, state, 'input_schema', 'FACTS_UNAVAILABLE');
    }
    if (!conforms) {
      const reasons = projectInputReasons(tool.registered.inputFields, ajvErrorsToReasons(validateInput.errors));
      return refuse(turn, state, 'input_schema', 'INVALID_ARGUMENTS', { reasons: reasons.length > 0 ? reasons : [{ field: '', rule: 'type' }] });
    }
    if (!isPlainObject(read.value)) {
      return refuse(turn, state, 'input_schema', 'INVALID_ARGUMENTS', { reasons: [{ field: '', rule: 'type' }] });
    }
    const args = read.value;

    const deadline = Math.min(turn.deadline, turn.startedAt + tool.deadlineMs);
    const abort = new CallAbort();
    // Frozen: the trusted check is handed this very object, and everything after it (digests,
    // approval, handler and status-query inputs, timers) reads its members.
    const invocation: ToolInvocation = Object.freeze(withSignal({ tool_name: tool.name, arguments: args, principal: turn.principal, deadline }, abort));
    const { aborts } = turn;
    if (aborts === null) return runAuthorized(turn, state, tool, invocation, abort);
    aborts.add(abort);
    try {
      if (turn.signal?.aborted === true) abort.abort();
      return await runAuthorized(turn, state, tool, invocation, abort);
    } finally {
      aborts.delete(abort);
    }
  }

  async function runAuthorized(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
  ): Promise<DispatchedCall> {
    const { deadline } = invocation;
    // Out of time, or aborted by the host, before anything is asked: nothing runs, and the answer
    // says so (a check cut short by the same deadline would answer FACTS_UNAVAILABLE instead).
    if (abort.aborted || now() >= deadline) return refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE');

    // Trusted checks: the host's check, then the proposal gate (access → state → rules).
    if (tool.check !== null) {
      const pending = runCheck(turn, tool, tool.check, invocation, abort);
      const checked = pending instanceof Promise ? await pending : pending;
      if (!checked.ok) {
        const refuseCheck = (): Promise<DispatchedCall> =>
          refuse(turn, state, 'trusted_checks', checked.code, checked.reasons === undefined ? {} : { reasons: canonicalReasons(checked.reasons) });
        if (!tool.earlierAttemptAfterRefusal || !REFUSALS_AN_EARLIER_WRITE_MAY_CAUSE.has(checked.code)) return refuseCheck();
        // Its own earlier attempt may have caused this refusal. The proposal gate has not run, and
        // its access step is authorization too: an earlier attempt is looked for only when it
        // passes or refuses on eligibility alone; otherwise (no time left, access refused, broken,
        // facts unavailable) the check's refusal is answered as it is.
        if (tool.proposal !== null) {
          if (abort.aborted || now() >= deadline) return refuseCheck();
          const decision = readProposalDecision(await runProposal(turn, tool, invocation, abort));
          if (decision.kind === 'broken' || (decision.kind === 'refused' && !mayFollowEarlierWrite(tool, state, decision))) return refuseCheck();
          state.decisionRecord = decision.record;
        }
        const recovered = await recoverAfterRefusal(turn, state, tool, invocation, abort);
        if (recovered !== null) return recovered;
        state.decisionRecord = null;
        return refuseCheck();
      }
    }
    let ready: ReadyForReview<unknown> | null = null;
    if (tool.proposal !== null) {
      // The check may have taken the time, or the host aborted meanwhile: nothing else is asked.
      if (abort.aborted || now() >= deadline) return refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE');
      const run = await runProposal(turn, tool, invocation, abort);
      // Read like a trusted check's answer: a broken validator holds the call (README).
      const decision = readProposalDecision(run);
      if (decision.kind === 'broken') {
        if (run.kind === 'returned') state.notes.push('proposal_validator_malformed');
        return refuse(turn, state, 'trusted_checks', 'FACTS_UNAVAILABLE');
      }
      state.decisionRecord = decision.record;
      if (decision.kind === 'refused') {
        // A write's own earlier attempt may have caused the refusal: answered from that attempt
        // when one may have run (README, "Approvals and earlier attempts").
        if (tool.earlierAttemptAfterRefusal && mayFollowEarlierWrite(tool, state, decision)) {
          const recovered = await recoverAfterRefusal(turn, state, tool, invocation, abort);
          if (recovered !== null) return recovered;
        }
        return refuseProposal(turn, state, tool, 'trusted_checks', decision);
      }
      ready = decision.decision as ReadyForReview<unknown>;
    }

    if (!tool.write) return executeRead(turn, state, tool, invocation, abort);

    // Approval, bound to the request digest (which also binds the principal and the contract).
    const { request_sha256, intent_sha256 } = writeDigestsOf(turn, tool, invocation);
    state.intentSha256 = intent_sha256;
    let idempotencyKey: string;
    if (tool.approvalRequired) {
      const match = matchApproval(turn.approvals, tool.name, request_sha256, now());
      if (match.kind !== 'approved') {
        // No consent for a new write, but an earlier attempt of this very request may have run:
        // its replay or status query writes nothing new, so it needs no live approval (README,
        // "Approvals and earlier attempts"). Every authorization gate above has run for this call.
        const expired = latestApprovalFor(turn.approvals, tool.name, request_sha256);
        const known = expired === null ? null : { key: expired.idempotency_key, approval: expired, expired: true };
        const recovered = await recoverEarlierAttempt(turn, state, tool, invocation, abort, request_sha256, known, false);
        if (recovered !== null) return recovered;
        state.approvalRequest = approvalRequestOf(tool, request_sha256, invocation.arguments);
        return refuse(turn, state, 'approval', match.kind === 'required' ? 'APPROVAL_REQUIRED' : 'APPROVAL_INVALID');
      }
      state.approval = approvalAuditRecord(match.approval);
      state.approvalExpiresAt = match.approval.expires_at;
      idempotencyKey = match.approval.idempotency_key;
    } else {
      // No person in the loop: the business intent itself is the key, so the same intent runs once.
      // Tenant, subject, tool and arguments only, never the contract revisions: after a deploy that
      // bumps one, the same intent meets its earlier record under a changed request digest and
      // answers STATUS_CONFLICT (human review), instead of running again under a new key.
      idempotencyKey = `${INTENT_KEY_PREFIX}${intent_sha256}`;
    }
    state.context.idempotency_key = idempotencyKey;
    return executeWrite(turn, state, tool, invocation, abort, request_sha256, ready);
  }

  /** Runs the tool's proposal validator on the proposal's fields, under the call's deadline. */
  async function runProposal(turn: Turn, tool: CompiledTool, invocation: ToolInvocation, abort: CallAbort): Promise<DeadlineRun> {
    const gate = tool.proposal as NonNullable<CompiledTool['proposal']>;
    const { validator } = gate;
    return runWithDeadline(
      (value: JsonObject) => validator.validate(turn.principal, { format: 'json_value', value }),
      projectProposal(invocation.arguments, gate.fields),
      abort,
      remainingMs(turn, invocation.deadline),
    );
  }

  /**
   * A write's `request_sha256` (binds tenant, subject, tool, arguments and the input, output and
   * effect revisions: what an approval names) and `intent_sha256` (the same intent whatever the
   * contract revisions: the key of a write without approval, and stored with every claim so that
   * an attempt made before a revision bump is still found; keyed, an HMAC, when the digester is,
   * so it does not reveal guessable arguments).
   */
  function writeDigestsOf(turn: Turn, tool: CompiledTool, invocation: ToolInvocation): { request_sha256: Sha256Hex; intent_sha256: Sha256Hex } {
    const contract = tool.registered.contract;
    const request_sha256 = turn.digester.requestDigest({
      tenant_id: turn.principal.tenant_id,
      subject_id: turn.principal.subject_id,
      tool_name: contract.tool_name,
      arguments: invocation.arguments,
      input_revision: contract.input_revision,
      output_revision: contract.output_revision,
      effect_revision: contract.effect_revision,
    });
    const intent_sha256 = turn.digester.digestTagged(INTENT_KEY_DOMAIN, {
      tenant_id: turn.principal.tenant_id,
      subject_id: turn.principal.subject_id,
      tool_name: contract.tool_name,
      arguments: invocation.arguments,
    });
    return { request_sha256, intent_sha256 };
  }

  /**
   * A write's trusted check or proposal gate refused on eligibility (RULE_REJECTED,
   * STATE_CHANGED), which the write's own earlier attempt may have caused (it consumed the
   * eligibility it was judged on). Before that refusal is answered, an earlier attempt of this
   * very request that may have run answers instead, exactly as for a call without a live approval
   * (`recoverEarlierAttempt`: read, never claimed just to look): first the key this call would
   * write under (the live approval's, else the latest expired one's, or the intent key of a tool
   * without approval), then every unresolved attempt the store lists for the request, then an
   * unresolved one of the intent under other revisions, then, when no approval names the request,
   * the attempt of it that completed last under any key (`recoverCompletedAttempt`). Its answer carries the note
   * `earlier_attempt_after_refusal` first. `null` when nothing may have run, or the store could not
   * tell (a `get` that fails ends the lookup: note `earlier_attempt_lookup_failed`, or
   * `idempotency_store_input_rejected`, `aborted_during_store_call`): the refusal is then answered
   * as it would be without the lookup, under no key and no approval (its own notes kept apart).
   */
  async function recoverAfterRefusal(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
  ): Promise<DispatchedCall | null> {
    const { request_sha256, intent_sha256 } = writeDigestsOf(turn, tool, invocation);
    state.intentSha256 = intent_sha256;
    let known: KnownKey | null;
    if (tool.approvalRequired) {
      const match = matchApproval(turn.approvals, tool.name, request_sha256, now());
      const approval = match.kind === 'approved' ? match.approval : latestApprovalFor(turn.approvals, tool.name, request_sha256);
      known = approval === null ? null : { key: approval.idempotency_key, approval, expired: match.kind !== 'approved' };
    } else {
      known = { key: `${INTENT_KEY_PREFIX}${intent_sha256}`, approval: null, expired: false };
    }
    const mark = state.notes.length;
    state.notes.push('earlier_attempt_after_refusal');
    const answer = await recoverEarlierAttempt(turn, state, tool, invocation, abort, request_sha256, known, true);
    if (answer !== null) return answer;
    // Nothing may have run under this request: the refusal, under no key and no approval.
    state.notes.splice(mark, known?.expired === true ? 2 : 1);
    state.context.idempotency_key = null;
    state.approval = null;
    return null;
  }

  /**
   * The answer to a record under `key` for another request digest. Under an intent key the record
   * is the same intent's, under other contract revisions (a deploy bumped one): it may have run,
   * runs or ran, and nobody can say which for this request, so STATUS_CONFLICT (outcome unknown,
   * human review; note `same_intent_other_request`). IDEMPOTENCY_CONFLICT says the key holds
   * another request and nothing of this one started, which would tell the model the write failed.
   * Under an approval's key the record is another request's (an approval binds its request), and
   * IDEMPOTENCY_CONFLICT answers, unless the record was claimed for this call's intent
   * (`sameIntent`: the host approved the same intent again after a deploy under the key it had used).
   */
  function refuseConflict(turn: Turn, state: CallState, key: string, sameIntent: boolean): Promise<DispatchedCall> {
    if (sameIntent || key.startsWith(INTENT_KEY_PREFIX)) {
      state.notes.push('same_intent_other_request');
      return refuse(turn, state, 'idempotency', 'STATUS_CONFLICT');
    }
    return refuse(turn, state, 'idempotency', 'IDEMPOTENCY_CONFLICT');
  }

  /**
   * A claim answered `conflict` under an approval's key: the record is read (`get`, ended by the
   * host's abort) to tell another request's (IDEMPOTENCY_CONFLICT) from the same intent's under
   * other contract revisions (STATUS_CONFLICT: the host approved the same intent again after a
   * deploy, under the key it had used). A record that cannot be read answers STATUS_CONFLICT
   * (note `conflict_record_unread`: whether this write happened is not known), or, when the host
   * aborted, TIMEOUT_BEFORE_EXECUTE at the deadline gate (`aborted_during_store_call`), as every
   * aborted store call.
   */
  async function refuseClaimConflict(turn: Turn, state: CallState, key: string, abort: CallAbort): Promise<DispatchedCall> {
    const intent_sha256 = state.intentSha256;
    if (key.startsWith(INTENT_KEY_PREFIX) || intent_sha256 === null) return refuseConflict(turn, state, key, false);
    let stored: Awaited<ReturnType<IdempotencyStore['get']>>;
    try {
      stored = await watchdog.watch(() => idempotencyStore.get(key), abort);
    } catch (error) {
      if (isAbortedWait(error)) {
        state.notes.push('aborted_during_store_call');
        return refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE');
      }
      state.notes.push('conflict_record_unread');
      return refuse(turn, state, 'idempotency', 'STATUS_CONFLICT');
    }
    const sameIntent = typeof stored === 'object' && stored !== null && stored.intent_sha256 === intent_sha256;
    return refuseConflict(turn, state, key, sameIntent);
  }

  /**
   * Claims `state.context.idempotency_key` for `request_sha256`. The key is this call's to run
   * under only when the store answers `claimed`; every other answer settles the call without a
   * write: replay, status query, OUTCOME_UNKNOWN, IDEMPOTENCY_CONFLICT (STATUS_CONFLICT under an
   * intent key: `refuseConflict`), or TIMEOUT_BEFORE_EXECUTE when the claim itself failed.
   */
  async function claimKey(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
    request_sha256: Sha256Hex,
  ): Promise<ClaimStep> {
    const key = state.context.idempotency_key as string;
    // Aborted already (the host's signal): nothing is claimed, nothing runs, the key stays free.
    if (abort.aborted) return settled(refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE'));
    let claim: Awaited<ReturnType<IdempotencyStore['claim']>>;
    try {
      // Bounded by storeTimeoutMs, and ended by an abort of the call: nothing has started yet.
      const claimInput: ClaimInput = { key, request_sha256, owner, lease_ms: leaseMs };
      if (state.intentSha256 !== null) claimInput.intent_sha256 = state.intentSha256;
      claim = await watchdog.watch(() => idempotencyStore.claim(claimInput), abort);
    } catch (error) {
      // The store refused an input of the dispatcher's own making: a bug, not an outage (nothing
      // was written), and a retry would fail the same way.
      if (StoreInputError.isInstance(error)) return settled(refuseStoreInput(turn, state));
      // The claim may have applied with its answer lost (or may still apply): then the key is
      // held until the claim's lease runs out, and a retry before that answers OUTCOME_UNKNOWN.
      // The host's abort is no store outage: audited at the deadline gate, as an abort elsewhere.
      const aborted = isAbortedWait(error);
      state.notes.push(aborted ? 'aborted_during_store_call' : 'idempotency_store_unavailable');
      return settled(
        refuse(turn, state, aborted ? 'deadline' : 'idempotency', 'TIMEOUT_BEFORE_EXECUTE', { retryAfterMs: claimRetryAfterMs }),
      );
    }
    switch (claim.kind) {
      case 'conflict':
        return settled(refuseClaimConflict(turn, state, key, abort));
      case 'in_progress':
        // Another host holds the key right now: from here the write may or may not happen.
        state.notes.push('in_progress_elsewhere');
        return settled(refuse(turn, state, 'idempotency', 'OUTCOME_UNKNOWN'));
      case 'completed':
        return settled(replayStored(turn, state, tool, invocation, claim.result));
      case 'outcome_unknown':
        return settled(reconcile(turn, state, tool, invocation, abort, request_sha256));
      case 'claimed':
        return { kind: 'claimed', fence: { key, fencing_token: claim.fencing_token } };
    }
  }

  /**
   * Replays the stored result of a `completed` record under `state.context.idempotency_key`. Every
   * authorization gate ran again for this call before; the package is then verified as sealed for
   * this principal, contract, arguments and key (`readStoredResult`), or STATUS_CONFLICT.
   */
  async function replayStored(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    stored: StoredResult,
  ): Promise<DispatchedCall> {
    const replay = readStoredResult(stored, {
      registry,
      tool_name: tool.name,
      principal: turn.principal,
      arguments: invocation.arguments,
      idempotency_key: state.context.idempotency_key as string,
      digester: turn.digester,
      now: nowDate,
    });
    if (replay === null) {
      state.notes.push(sealedUnderOtherRevisions(stored, tool.registered.contract, registry) ? 'stored_under_other_revisions' : 'stored_result_unverifiable');
      return refuse(turn, state, 'idempotency', 'STATUS_CONFLICT');
    }
    state.replayOf = replay.operation_id;
    return record(turn, state, seal(turn, state, replay.subject, 'local_replay'), 'idempotency');
  }

  /** Gives a claim back (nothing ran under it); `true` when the store confirmed. */
  async function releaseFence(fence: Fence): Promise<boolean> {
    try {
      const released = await watchdog.watch(() => idempotencyStore.release(fence));
      return released.ok;
    } catch {
      // The lease runs out on its own; the next claim takes the key over.
      return false;
    }
  }

  /**
   * Every unresolved attempt of `request_sha256` (a write that may be running or may have run
   * without a known outcome) under a key other than `ownKey`, from the store's optional
   * `findUnresolved`: nothing when the store cannot look requests up. At most
   * `EARLIER_ATTEMPT_LOOKUP_LIMIT` of them; `more` when the list came back that long.
   */
  async function findEarlierAttempts(request_sha256: Sha256Hex, ownKey: string | null): Promise<EarlierAttempts> {
    // Looked up per call, as every store method is (a store that lacks it: nothing to find).
    const findUnresolved = idempotencyStore.findUnresolved;
    if (typeof findUnresolved !== 'function') return NO_EARLIER_ATTEMPTS;
    const input: FindUnresolvedInput = { request_sha256, limit: EARLIER_ATTEMPT_LOOKUP_LIMIT };
    return lookUp(
      () => findUnresolved.call(idempotencyStore, input),
      (found) => readEarlierAttempts(found, request_sha256, ownKey),
    );
  }

  /**
   * One optional lookup of the idempotency store, bounded by the watchdog, its answer read by
   * `read` without trusting it: a throw or a timeout, of the store or of reading its answer, is
   * `unavailable`; a StoreInputError (the store refused the dispatcher's input) `input_rejected`.
   */
  async function lookUp<T>(ask: () => unknown, read: (found: unknown) => T): Promise<T | LookupFailure> {
    try {
      return read(await watchdog.watch(ask));
    } catch (error) {
      return { kind: StoreInputError.isInstance(error) ? 'input_rejected' : 'unavailable' };
    }
  }

  /**
   * The store's `findCompleted` for the call's intent digest (at most `EARLIER_ATTEMPT_LOOKUP_LIMIT`
   * records), its answer read by `read`; `null` when the call has no intent digest or the store
   * no `findCompleted`.
   */
  function lookUpCompleted<T>(state: CallState, read: (found: unknown, intent_sha256: Sha256Hex) => T): Promise<T | LookupFailure> | null {
    const intent_sha256 = state.intentSha256;
    const findCompleted = idempotencyStore.findCompleted;
    if (intent_sha256 === null || typeof findCompleted !== 'function') return null;
    const input: FindCompletedInput = { intent_sha256, limit: EARLIER_ATTEMPT_LOOKUP_LIMIT };
    return lookUp(
      () => findCompleted.call(idempotencyStore, input),
      (listed) => read(listed, intent_sha256),
    );
  }

  /**
   * Reads the record under an expired approval's key with `get`, which writes nothing: a call
   * without a live approval never claims a key just to look at it, since that claim, however
   * brief, would answer a live approval under the same key `in_progress` (OUTCOME_UNKNOWN) though
   * nothing ran. A call answer instead when the store could not be read: TIMEOUT_BEFORE_EXECUTE
   * (nothing was written, so the key is as it was), or TOOL_ERROR for an input it refused; after a
   * trusted check's or proposal gate's refusal (`afterRefusal`), `failed` instead, noted
   * (`earlier_attempt_lookup_failed`, `idempotency_store_input_rejected` or
   * `aborted_during_store_call`): the refusal is then answered, no worse than without the lookup.
   */
  async function readAttempt(
    turn: Turn,
    state: CallState,
    key: string,
    abort: CallAbort,
    request_sha256: Sha256Hex,
    afterRefusal: boolean,
  ): Promise<{ kind: 'read'; view: AttemptView } | { kind: 'answered'; answer: DispatchedCall } | { kind: 'failed' }> {
    let record: unknown;
    try {
      record = await watchdog.watch(() => idempotencyStore.get(key), abort);
    } catch (error) {
      const inputRejected = StoreInputError.isInstance(error);
      const aborted = !inputRejected && isAbortedWait(error);
      if (afterRefusal) {
        // Looking after a refusal: the refusal stands, noted, rather than an answer worse than it.
        state.notes.push(inputRejected ? 'idempotency_store_input_rejected' : aborted ? 'aborted_during_store_call' : 'earlier_attempt_lookup_failed');
        return { kind: 'failed' };
      }
      if (inputRejected) return { kind: 'answered', answer: await refuseStoreInput(turn, state) };
      state.notes.push(aborted ? 'aborted_during_store_call' : 'idempotency_store_unavailable');
      const answer = await refuse(turn, state, aborted ? 'deadline' : 'idempotency', 'TIMEOUT_BEFORE_EXECUTE', { retryAfterMs: STORE_RETRY_AFTER_MS });
      return { kind: 'answered', answer };
    }
    return { kind: 'read', view: viewAttempt(record, request_sha256, now(), state.intentSha256) };
  }

  /**
   * Answers the call from the attempt of `request_sha256` under `key` with that key's claim:
   * `completed` replays, `outcome_unknown` queries status, `in_progress` is OUTCOME_UNKNOWN,
   * `conflict` is IDEMPOTENCY_CONFLICT (STATUS_CONFLICT under an intent key: `refuseConflict`), a failed claim TIMEOUT_BEFORE_EXECUTE. When the claim
   * succeeded, nothing ran under the key and the claim is given back at once: `free` (note
   * `earlier_attempt_free`), or `held` when the store did not confirm the release (note
   * `release_failed`: the key stays held until the claim's lease runs out).
   */
  async function answerFromAttempt(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
    request_sha256: Sha256Hex,
    key: string,
  ): Promise<DispatchedCall | 'free' | 'held'> {
    state.context.idempotency_key = key;
    const step = await claimKey(turn, state, tool, invocation, abort, request_sha256);
    if (step.kind === 'settled') return step.answer;
    const released = await releaseFence(step.fence);
    state.notes.push(released ? 'earlier_attempt_free' : 'release_failed');
    return released ? 'free' : 'held';
  }

  /**
   * For a call without a live approval: answers from the attempt under `key` as `view` shows it,
   * without a claim wherever the store's state machine allows (a `completed` record replays, an
   * `unknown` one queries status, a `started` one with a live lease is OUTCOME_UNKNOWN, another
   * request's is IDEMPOTENCY_CONFLICT, or STATUS_CONFLICT under an intent key). Only a `started` record whose lease ran out (or one outside
   * the store's contract) is claimed, as the store requires to turn it `unknown`. `null` when
   * nothing ran under the key. If that claim comes back `claimed` (the write gave the key back
   * since it was read), it is released at once; when the store does not confirm the release, the
   * key stays held for the lease: TIMEOUT_BEFORE_EXECUTE (`retry_after_ms` the lease, note
   * `release_failed`), never a silent hold behind an APPROVAL_REQUIRED.
   */
  async function answerFromView(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
    request_sha256: Sha256Hex,
    key: string,
    view: AttemptView,
  ): Promise<DispatchedCall | null> {
    if (view.kind === 'not_run') return null;
    state.context.idempotency_key = key;
    // Aborted already (the host's signal): as a claim would be, nothing is answered from the record.
    if (abort.aborted) return refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE');
    switch (view.kind) {
      case 'conflict':
        return refuseConflict(turn, state, key, view.sameIntent);
      case 'completed':
        return replayStored(turn, state, tool, invocation, view.result);
      case 'unknown':
        return reconcile(turn, state, tool, invocation, abort, request_sha256);
      case 'running':
        state.notes.push('in_progress_elsewhere');
        return refuse(turn, state, 'idempotency', 'OUTCOME_UNKNOWN');
      case 'claim_needed': {
        const answer = await answerFromAttempt(turn, state, tool, invocation, abort, request_sha256, key);
        if (answer === 'free') return null;
        // Nothing ran, but this call holds the key until the lease runs out: it says so.
        if (answer === 'held') return refuse(turn, state, 'idempotency', 'TIMEOUT_BEFORE_EXECUTE', { retryAfterMs: claimRetryAfterMs });
        return answer;
      }
    }
  }

  /**
   * A write without a live approval: answers from an earlier attempt of this very request, if
   * there is one that may have run, with its replay or its status query (neither writes anything
   * new, so neither needs consent; every authorization gate has already run for this call). First
   * the `known` key (the latest approval the host still presents for this request, though
   * expired; after a refusal, `recoverAfterRefusal`'s key), read with `get`; then every unresolved
   * attempt the store finds, those where a write ran first; `afterRefusal` with no approval naming
   * the request, last a completed attempt of it under any key. Each is answered from what was read,
   * and claimed only where the store requires a claim (a `started` record whose lease ran out).
   * `null` when there is none: the call then needs an approval (README, "Approvals and earlier
   * attempts"), or, `afterRefusal`, is answered with its trusted check's or proposal's refusal.
   */
  async function recoverEarlierAttempt(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
    request_sha256: Sha256Hex,
    known: KnownKey | null,
    afterRefusal: boolean,
  ): Promise<DispatchedCall | null> {
    if (known !== null) {
      if (known.approval !== null) state.approval = approvalAuditRecord(known.approval);
      if (known.expired) state.notes.push('approval_expired');
      const { key } = known;
      state.context.idempotency_key = key;
      const read = await readAttempt(turn, state, key, abort, request_sha256, afterRefusal);
      if (read.kind === 'answered') return read.answer;
      // After a refusal, a store that cannot be read ends the lookup: the refusal is answered.
      if (read.kind === 'failed') return null;
      // After a refusal, another request's record under an approval's key (a host's approval keys
      // collide) is nobody's attempt of this request: the refusal is answered, not
      // IDEMPOTENCY_CONFLICT. Under an intent key it is the same intent's, under other contract
      // revisions, which may have run: STATUS_CONFLICT, as without the refusal (`refuseConflict`).
      const view = afterRefusal && read.view.kind === 'conflict' && !read.view.sameIntent && !key.startsWith(INTENT_KEY_PREFIX) ? NOT_RUN : read.view;
      const answer = await answerFromView(turn, state, tool, invocation, abort, request_sha256, key, view);
      if (answer !== null) return answer;
    }
    const found = await findEarlierAttempts(request_sha256, null);
    if (found.kind === 'found') {
      if (found.attempts.length > 0) state.notes.push('earlier_attempt_unresolved');
      for (const attempt of found.attempts) {
        if (attempt.state === 'claimed') {
          // Another call holds a live claim for this request and may start it any moment: in
          // progress elsewhere, as its claim would answer, but read, never claimed (a claim
          // here could turn that call's own write away).
          state.context.idempotency_key = attempt.key;
          state.notes.push('in_progress_elsewhere');
          return refuse(turn, state, 'idempotency', 'OUTCOME_UNKNOWN');
        }
        const view = viewAttempt(attempt.record, request_sha256, now(), state.intentSha256);
        const answer = await answerFromView(turn, state, tool, invocation, abort, request_sha256, attempt.key, view);
        if (answer !== null) return answer;
      }
      if (found.more) state.notes.push('earlier_attempts_beyond_lookup');
    } else {
      state.notes.push(found.kind === 'input_rejected' ? 'idempotency_store_input_rejected' : 'earlier_attempt_lookup_failed');
    }
    state.context.idempotency_key = null;
    // Not under this request but under other contract revisions: no approval is asked for a write
    // whose earlier attempt may have run (STATUS_CONFLICT, human review).
    const conflict = await findIntentConflict(state, request_sha256, null, false, false);
    if (conflict !== null) return refuse(turn, state, 'idempotency', conflict);
    // After an eligibility refusal, when no approval the host presents names the write this call
    // stands for, a completed attempt of the request under any key answers. Not otherwise: a call
    // that passed its gates may write again, which a person decides (a new key means "do it
    // again"); one whose approval names a key under which nothing ran is that write, refused.
    if (!afterRefusal || (known !== null && known.approval !== null)) return null;
    return recoverCompletedAttempt(turn, state, tool, invocation, abort, request_sha256);
  }

  /**
   * After an eligibility refusal, for a call that holds no approval naming its request (none
   * presented, or a tool without approval whose own intent key was read already): the latest
   * completed attempt of this very request the store's `findCompleted` lists under any key
   * answers, as a `completed` record read under a known key does (replayed after every check of
   * `readStoredResult`, or STATUS_CONFLICT; note `earlier_attempt_completed`). Asked after the
   * unresolved lookups, so that an attempt completing between the two is found by one of them.
   * `null` when there is none, when the store has no `findCompleted`, and when the lookup fails
   * (note `completed_lookup_failed`, or `idempotency_store_input_rejected`) or comes back full
   * (note `completed_attempts_beyond_lookup`: a later attempt may be left out): the refusal is
   * then answered, no worse than without the lookup.
   */
  async function recoverCompletedAttempt(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
    request_sha256: Sha256Hex,
  ): Promise<DispatchedCall | null> {
    const found = await lookUpCompleted(state, (listed, intent_sha256) => readCompletedAttemptOfRequest(listed, intent_sha256, request_sha256));
    if (found === null) return null;
    if (found.kind !== 'found') {
      state.notes.push(found.kind === 'input_rejected' ? 'idempotency_store_input_rejected' : 'completed_lookup_failed');
      return null;
    }
    const { attempt } = found;
    // A full list may have left out an attempt that completed later than every listed one: which
    // one is the request's last outcome is then unknown, and the refusal is answered.
    if (found.more) {
      state.notes.push('completed_attempts_beyond_lookup');
      return null;
    }
    if (attempt === null) return null;
    const notes = state.notes.length;
    state.notes.push('earlier_attempt_completed');
    const view = viewAttempt(attempt.record, request_sha256, now(), state.intentSha256);
    const answer = await answerFromView(turn, state, tool, invocation, abort, request_sha256, attempt.key, view);
    if (answer === null) {
      // Not an attempt after all (a record outside the store's contract whose claim found the key
      // free): the refusal is answered as it is, under no key, the claim's own note kept.
      state.notes.splice(notes, 1);
      state.context.idempotency_key = null;
    }
    return answer;
  }

  /**
   * STATUS_CONFLICT (the earlier attempt may have run: outcome unknown, human review; note
   * `unresolved_attempt_other_revisions`, or
   * `unresolved_attempt_other_key` for one of the same request) when the store lists an unresolved
   * attempt of the call's intent under a key other than `ownKey` and for another request digest,
   * or for any request when `anyRequest` (an intent key's write: the request-based lookup does not
   * run for it); OUTCOME_UNKNOWN (note `in_progress_elsewhere` too) when every such attempt is live
   * (claimed or started with a live lease: running now, during a rolling deploy say). `null` when there is none, and when the store cannot look intents up (no
   * `findUnresolved`, or one that refuses the intent input: a store from before intent digests;
   * note `intent_lookup_unsupported`). For a write about to start (`write`), a lookup that fails
   * (note `intent_lookup_failed`) or a full list without a conflict in it (note
   * `intent_attempts_beyond_lookup`: it may have left one out) answers TIMEOUT_BEFORE_EXECUTE,
   * nothing run, as the request-based lookup does; for a preview they are noted and the approval is
   * asked for (the approved write looks again). The caller answers with the code returned.
   */
  async function findIntentConflict(
    state: CallState,
    request_sha256: Sha256Hex,
    ownKey: string | null,
    anyRequest: boolean,
    write: boolean,
  ): Promise<'STATUS_CONFLICT' | 'OUTCOME_UNKNOWN' | 'TIMEOUT_BEFORE_EXECUTE' | null> {
    const intent_sha256 = state.intentSha256;
    const findUnresolved = idempotencyStore.findUnresolved;
    if (intent_sha256 === null || typeof findUnresolved !== 'function') return null;
    const input: FindUnresolvedInput = { intent_sha256, limit: EARLIER_ATTEMPT_LOOKUP_LIMIT };
    const found = await lookUp(
      () => findUnresolved.call(idempotencyStore, input),
      (listed) => readIntentAttempts(listed, intent_sha256, ownKey ?? '', now()),
    );
    if (found.kind === 'input_rejected') {
      state.notes.push('intent_lookup_unsupported');
      return null;
    }
    if (found.kind === 'found') {
      const others = found.attempts.filter((attempt) => anyRequest || attempt.request_sha256 !== request_sha256);
      // One whose outcome nobody knows first: only a person can tell whether this write is another.
      const other = others.find((attempt) => !attempt.live) ?? others[0];
      if (other !== undefined) {
        state.notes.push(other.request_sha256 === request_sha256 ? 'unresolved_attempt_other_key' : 'unresolved_attempt_other_revisions');
        if (!other.live) return 'STATUS_CONFLICT';
        // Running or about to start (a rolling deploy, say): in progress elsewhere, as a claim of
        // its key would answer; a retry after it finished meets its outcome.
        state.notes.push('in_progress_elsewhere');
        return 'OUTCOME_UNKNOWN';
      }
      if (!found.more) return null;
      state.notes.push('intent_attempts_beyond_lookup');
    } else {
      state.notes.push('intent_lookup_failed');
    }
    return write ? 'TIMEOUT_BEFORE_EXECUTE' : null;
  }

  /**
   * Before a write under an intent key (`ownKey`, claimed; a tool without approval): the same
   * intent completed under another key, an approval's from before the tool's approval mode changed
   * from `'required'` to `'none'`. Its call ended there, whatever its result, so this write does
   * not run: STATUS_CONFLICT (outcome unknown: the completed call may have written or refused;
   * note `completed_attempt_other_key`; a person decides, as for an
   * intent completed under other contract revisions). Asked after the unresolved lookup, so that
   * an attempt completing between the two is found by one of them. `null` when there is none, and
   * when the store has no `findCompleted`. A lookup that fails (note `completed_lookup_failed`) or
   * a full list without one in it (note `completed_attempts_beyond_lookup`) answers
   * TIMEOUT_BEFORE_EXECUTE, nothing run; one that refuses the dispatcher's input
   * (StoreInputError: a bug) `input_rejected`, answered as every such refusal (TOOL_ERROR).
   */
  async function findCompletedElsewhere(
    state: CallState,
    ownKey: string,
  ): Promise<'STATUS_CONFLICT' | 'TIMEOUT_BEFORE_EXECUTE' | 'input_rejected' | null> {
    const found = await lookUpCompleted(state, (listed, intent_sha256) => readCompletedAttempts(listed, intent_sha256, ownKey));
    if (found === null) return null;
    switch (found.kind) {
      case 'input_rejected':
        return 'input_rejected';
      case 'unavailable':
        state.notes.push('completed_lookup_failed');
        return 'TIMEOUT_BEFORE_EXECUTE';
      case 'found':
        if (found.elsewhere) {
          state.notes.push('completed_attempt_other_key');
          return 'STATUS_CONFLICT';
        }
        if (!found.more) return null;
        state.notes.push('completed_attempts_beyond_lookup');
        return 'TIMEOUT_BEFORE_EXECUTE';
    }
  }

  /**
   * Before an approved write runs under its own key (`fence`, claimed): an unresolved attempt of
   * the same request under another key (an approval given again, under a new key, while the first
   * write's outcome is unknown) means this write must not start. Each one the store lists is
   * claimed in turn, those where a write ran first: the first whose claim does not come back free
   * answers the call (status query, OUTCOME_UNKNOWN, its replay) and this call's own key is given
   * back. `null` only when every one turned out free (nothing ran under it; its claim is given
   * back) and the list was complete: the write goes on. A full list whose attempts all turned out
   * free may have left one out: TIMEOUT_BEFORE_EXECUTE, as when the lookup fails.
   */
  async function guardEarlierAttempts(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
    request_sha256: Sha256Hex,
    fence: Fence,
  ): Promise<DispatchedCall | null> {
    const found = await findEarlierAttempts(request_sha256, fence.key);
    if (found.kind === 'input_rejected') {
      await releaseFence(fence);
      return refuseStoreInput(turn, state);
    }
    if (found.kind === 'found') {
      if (found.attempts.length > 0) state.notes.push('earlier_attempt_unresolved');
      for (const attempt of found.attempts) {
        const answer = await answerFromAttempt(turn, state, tool, invocation, abort, request_sha256, attempt.key);
        // A key that turned out free, even one whose release was not confirmed (noted
        // `release_failed`: held until its lease runs out), hides no write: the search goes on.
        if (typeof answer !== 'string') {
          await releaseFence(fence);
          return answer;
        }
      }
      state.context.idempotency_key = fence.key;
      if (!found.more) return null;
      state.notes.push('earlier_attempts_beyond_lookup');
    } else {
      state.notes.push('idempotency_store_unavailable');
    }
    // Whether an earlier attempt is unresolved cannot be told: nothing starts, nothing ran.
    const released = await releaseFence(fence);
    return refuse(turn, state, 'idempotency', 'TIMEOUT_BEFORE_EXECUTE', {
      retryAfterMs: released ? STORE_RETRY_AFTER_MS : claimRetryAfterMs,
    });
  }

  async function executeWrite(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
    request_sha256: Sha256Hex,
    ready: ReadyForReview<unknown> | null,
  ): Promise<DispatchedCall> {
    const key = state.context.idempotency_key as string;
    const step = await claimKey(turn, state, tool, invocation, abort, request_sha256);
    if (step.kind === 'settled') return step.answer;
    const { fence } = step;
    const release = async (): Promise<void> => {
      await releaseFence(fence);
    };
    // An approval's key is the host's choice, so the same request may come again under a new one.
    // (An intent key has no such lookup: an attempt of its intent under another key, an approval's
    // from before the tool's approval mode changed, is found by the intent lookup below.)
    if (tool.approvalRequired) {
      const guarded = await guardEarlierAttempts(turn, state, tool, invocation, abort, request_sha256, fence);
      if (guarded !== null) return guarded;
    }
    // An unresolved attempt of the same intent under other contract revisions (a deploy bumped
    // one meanwhile), or, for an intent key, under an approval's key (the tool's approval mode
    // changed): its outcome is unknown and only a person can tell whether this write is another.
    // For an intent key, then, the same intent completed under an approval's key: it ran once.
    const conflict =
      (await findIntentConflict(state, request_sha256, key, !tool.approvalRequired, true)) ??
      (tool.approvalRequired ? null : await findCompletedElsewhere(state, key));
    if (conflict === 'input_rejected') {
      await releaseFence(fence);
      return refuseStoreInput(turn, state);
    }
    if (conflict !== null) {
      // Nothing ran under the key: given back before the answer, which says how long it stays held.
      const released = await releaseFence(fence);
      const wait = released ? STORE_RETRY_AFTER_MS : claimRetryAfterMs;
      return refuse(turn, state, 'idempotency', conflict, conflict === 'TIMEOUT_BEFORE_EXECUTE' ? { retryAfterMs: wait } : {});
    }

    // Recheck the proposal against current facts right before the effect (spec 002).
    if (ready !== null && tool.proposal !== null) {
      // The claim and the lookups may have taken the time (they do not end with the deadline), or
      // the host aborted meanwhile: the validator is not asked after that, as before the proposal gate.
      if (abort.aborted || now() >= invocation.deadline) {
        await release();
        return refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE');
      }
      const validator = tool.proposal.validator;
      const run = await runWithDeadline(
        (decision: ReadyForReview<unknown>) => validator.recheckCurrent(turn.principal, decision),
        ready,
        abort,
        remainingMs(turn, invocation.deadline),
      );
      const recheck = readProposalDecision(run);
      if (recheck.kind !== 'ready') {
        await release();
        if (recheck.kind === 'broken') {
          if (run.kind === 'returned') state.notes.push('proposal_validator_malformed');
          return refuse(turn, state, 'recheck', 'FACTS_UNAVAILABLE');
        }
        state.decisionRecord = recheck.record;
        return refuseProposal(turn, state, tool, 'recheck', recheck);
      }
      state.decisionRecord = recheck.record;
    }

    if (abort.aborted || now() >= invocation.deadline) {
      await release();
      return refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE');
    }
    // An approval authorizes starting the write until it expires, and the claim and lookups above
    // may have taken longer (each up to storeTimeoutMs): checked again before the effect, as the
    // deadline is. Its APPROVAL_INVALID carries the bound preview to show a person, as the gate's does.
    const expiredApproval = (): ApprovalRequest => approvalRequestOf(tool, request_sha256, invocation.arguments);
    if (now() >= state.approvalExpiresAt) {
      await release();
      state.approvalRequest = expiredApproval();
      return refuse(turn, state, 'approval', 'APPROVAL_INVALID');
    }
    let started: Awaited<ReturnType<IdempotencyStore['markStarted']>>;
    try {
      // Bounded by storeTimeoutMs, and ended by an abort of the call: the handler has not started.
      started = await watchdog.watch(
        () =>
          idempotencyStore.markStarted({
            ...fence,
            // Whole milliseconds, as stores require; rounded up, so the lease outlasts the deadline.
            lease_ms: Math.ceil(Math.max(1, remainingMs(turn, invocation.deadline))) + leaseMarginMs,
          }),
        abort,
      );
    } catch (error) {
      // Whether the store applied markStarted is unknown (its answer may be what was lost), but
      // the handler certainly did not start: release with that declaration, which frees the key
      // from `claimed` and from `started` alike. Only a confirmed release lets the model hear
      // "nothing was executed, retry"; otherwise the key may stay held (see README).
      if (StoreInputError.isInstance(error)) {
        await releaseDeclaredNotStarted(fence, state);
        return refuseStoreInput(turn, state);
      }
      const aborted = isAbortedWait(error);
      state.notes.push(aborted ? 'aborted_during_store_call' : 'idempotency_store_unavailable');
      return giveBackUnstarted(turn, state, fence, aborted ? 'deadline' : 'idempotency', STORE_RETRY_AFTER_MS);
    }
    if (!started.ok) {
      const reason = fenceFailureOf(started.reason);
      if (reason === 'lease_expired') {
        await release();
        return refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE');
      }
      state.notes.push(`mark_started_${reason}`);
      // A reason outside the store contract says nothing about the key: handled as a markStarted
      // that threw (the handler certainly did not start).
      if (reason === 'unexpected') return giveBackUnstarted(turn, state, fence, 'idempotency', STORE_RETRY_AFTER_MS);
      // Another claim took the key over: it may run the write.
      return refuse(turn, state, 'idempotency', 'OUTCOME_UNKNOWN');
    }
    // markStarted may have answered after the deadline or the host's abort (it is bounded by
    // storeTimeoutMs, not by the deadline): a write must not start late. Nothing has run.
    if (abort.aborted || now() >= invocation.deadline) {
      state.notes.push(abort.aborted ? 'aborted_during_mark_started' : 'deadline_during_mark_started');
      return giveBackUnstarted(turn, state, fence, 'deadline', undefined);
    }
    if (now() >= state.approvalExpiresAt) {
      state.notes.push('approval_expired_during_mark_started');
      return giveBackUnstarted(turn, state, fence, 'approval', undefined, expiredApproval());
    }
    // The log learns of the write before it starts: the call's own entry is appended only after the
    // record is completed, and a host killed in between would otherwise leave a write that ran with
    // nothing about it in the log. A write the log cannot hear of does not start.
    const announced = await announceWrite(turn, state, request_sha256, abort);
    if (announced === 'failed') {
      state.notes.push('audit_unavailable_before_write');
      return giveBackUnstarted(turn, state, fence, 'idempotency', STORE_RETRY_AFTER_MS);
    }
    // The announcement may have answered after the deadline, or been cut short by the host's
    // abort. Nothing has run, and no await separates this check from the handler call.
    if (announced === 'aborted' || abort.aborted || now() >= invocation.deadline) {
      state.notes.push(abort.aborted || announced === 'aborted' ? 'aborted_during_write_announcement' : 'deadline_during_write_announcement');
      return giveBackUnstarted(turn, state, fence, 'deadline', undefined);
    }
    if (now() >= state.approvalExpiresAt) {
      state.notes.push('approval_expired_during_write_announcement');
      return giveBackUnstarted(turn, state, fence, 'approval', undefined, expiredApproval());
    }

    const handlerInput = handlerInputOf(invocation, abort, state.context.operation_id, key, tool.proposal === null ? null : state.decisionRecord);
    state.executed = true;
    const run = await runWithDeadline(tool.handler, handlerInput, abort, remainingMs(turn, invocation.deadline));
    const markUnknown = async (): Promise<void> => {
      try {
        await watchdog.watch(() => idempotencyStore.markUnknown(fence));
      } catch {
        // The started lease runs out on its own; the next claim turns the record into unknown.
      }
    };
    if (run.kind === 'timed_out') {
      await markUnknown();
      return refuse(turn, state, 'handler', 'OUTCOME_UNKNOWN');
    }
    const outcome = run.kind === 'returned' ? readHandlerOutcome(run.value, 'data') : null;
    if (outcome === null || outcome.kind === 'garbage' || !declaresHandlerReasons(tool, outcome, invocation.arguments)) {
      // It started, so it may have written before failing: only a status query can tell.
      await markUnknown();
      return refuse(turn, state, 'handler', 'TOOL_ERROR');
    }
    /**
     * Completes the record with `output`. `rejected` when the sealed result can never be stored
     * (the store refused it as input, StoreInputError, or it has no canonical text): a dispatcher
     * bug, not an outage, and every retry would fail the same way. An outage (a throw, no answer in
     * time) is `done`: a late completion may still land, and otherwise the started lease runs out.
     */
    const complete = async (output: SealResultOutput): Promise<'done' | 'rejected'> => {
      let result: ResultInput;
      try {
        result = { sealed_json: sealedJson(output), receipt: output.sealed.protected_audit.downstream.receipt };
      } catch {
        state.notes.push('complete_input_rejected');
        return 'rejected';
      }
      try {
        const completed = await watchdog.watch(() => idempotencyStore.complete({ ...fence, result }));
        if (!completed.ok) {
          state.notes.push(`complete_${fenceFailureOf(completed.reason)}`);
          // The started lease ran out while the handler or this completion was on its way, and
          // another claim turned the record `unknown`. With a receipt in hand, this dispatcher knows
          // the outcome: reconcile (unknown → completed, checked against the request digest), so
          // retries replay it instead of answering OUTCOME_UNKNOWN forever.
          if (completed.reason === 'wrong_state' && completed.state === 'unknown' && result.receipt !== null) {
            state.notes.push(await reconcileAfterLease(key, request_sha256, result));
          }
        }
      } catch (error) {
        if (StoreInputError.isInstance(error)) {
          state.notes.push('complete_input_rejected');
          return 'rejected';
        }
        state.notes.push('complete_failed');
      }
      return 'done';
    };
    if (outcome.kind === 'error') {
      // The downstream system refused and nothing happened (every handler code is `not_started`).
      // Its reasons deduplicated and in canonical order: the handler's order carries nothing.
      const output = seal(turn, state, errorSubject(outcome.code, { ...outcome, reasons: canonicalReasons(outcome.reasons ?? []) }), 'fresh');
      if (RETRYABLE_HANDLER_CODES.has(outcome.code)) {
        // A temporary refusal (wait, refresh, hold): give the key back, so that the same intent
        // runs once the condition passes instead of replaying the refusal forever. Fenced: only
        // this claim's holder can release it, and only from `started`, never from `unknown`.
        if ((await releaseDeclaredNotStarted(fence, state)) !== 'released' && (await complete(output)) === 'rejected') {
          await markUnknown();
        }
      } else if ((await complete(output)) === 'rejected' && (await releaseDeclaredNotStarted(fence, state)) !== 'released') {
        // NOT_FOUND, RULE_REJECTED: final for this key; it replays as such (see README). One the
        // store cannot hold is given back instead (the handler declared that nothing ran), and
        // if even that fails the record turns unknown rather than staying `started`.
        await markUnknown();
      }
      return record(turn, state, output, 'handler');
    }
    const output = seal(turn, state, { kind: 'data', output: outcome.envelope }, 'fresh');
    if (output.violations.length > 0) {
      await markUnknown();
      return record(turn, state, output, 'output_contract');
    }
    if ((await complete(output)) === 'rejected') {
      // The write happened, but its sealed result can never be recorded: no replay and no
      // reconciliation could ever stand behind it. The record turns unknown (never `started` for
      // good, never run again), and the model is not told a success the record cannot keep: it is
      // TOOL_ERROR, outcome unknown, for a person to review (spec 000: a conservative state, no
      // internal detail). The protected audit keeps the downstream receipt and status reference.
      await markUnknown();
      return refuseUnrecordable(turn, state, output, 'idempotency');
    }
    return record(turn, state, output, 'sealed');
  }

  /**
   * TOOL_ERROR for a committed write whose sealed result the idempotency store refused as input
   * (`complete` or `reconcile`): sealed with the downstream receipt and status reference of that
   * result, so the audit entry holds what a person needs to reconcile it.
   */
  function refuseUnrecordable(turn: Turn, state: CallState, unrecorded: SealResultOutput, gate: DispatchGate): Promise<DispatchedCall> {
    const { receipt, status_ref } = unrecorded.sealed.protected_audit.downstream;
    return record(turn, state, seal(turn, state, { kind: 'error', code: 'TOOL_ERROR', receipt, status_ref }, 'fresh'), gate);
  }

  /**
   * Releases a claimed or started record when the handler positively did not execute anything:
   * it declared so itself (a temporary catalogued refusal), or the dispatcher never called it
   * (markStarted's answer was lost). `released` when the store confirmed; otherwise why not
   * (`failed`: it threw). After a handler's refusal the caller then completes the record with the
   * refusal (a final answer for the key), never leaves it to turn `unknown`.
   */
  async function releaseDeclaredNotStarted(
    fence: { key: string; fencing_token: number },
    state: CallState,
  ): Promise<'released' | FenceFailure | 'failed'> {
    try {
      const released = await watchdog.watch(() => idempotencyStore.release({ ...fence, handler_declared_not_started: true }));
      if (released.ok) return 'released';
      state.notes.push(`release_${fenceFailureOf(released.reason)}`);
      return released.reason;
    } catch {
      state.notes.push('release_failed');
      return 'failed';
    }
  }

  /** `reconcile` of a record another claim turned `unknown` under this call: the note it leaves. */
  async function reconcileAfterLease(key: string, request_sha256: Sha256Hex, result: ResultInput): Promise<string> {
    try {
      const reconciled = await watchdog.watch(() => idempotencyStore.reconcile({ key, request_sha256, result }));
      return reconciled.ok ? 'reconciled_after_lease' : `reconcile_${fenceFailureOf(reconciled.reason)}`;
    } catch {
      // The record stays `unknown`: retries query the status, as before.
      return 'reconcile_failed';
    }
  }

  /**
   * Appends the `write_started` entry of a write whose record is `started` and whose handler is
   * about to run: its ids in the columns (call, operation, idempotency key) and, in the body, the
   * tool, the request digest, the principal reference and, for an approved write, the approval
   * (approver, expiry, digest). `failed` when the log refused it, did not answer in time or
   * answered without naming an entry; `aborted` when the host's abort ended the wait. An append
   * that lands late then names a write that did not start: the call's own entry says so.
   */
  async function announceWrite(
    turn: Turn,
    state: CallState,
    request_sha256: Sha256Hex,
    abort: CallAbort,
  ): Promise<'announced' | 'failed' | 'aborted'> {
    const body: JsonObject = { tool_name: state.call.tool_name, request_sha256, principal_ref: turn.digester.principalRefValue };
    if (state.approval !== null) body['approval'] = state.approval;
    try {
      const appended = await watchdog.watch(
        () =>
          auditLog.append({
            kind: 'write_started',
            call_id: state.call.call_id,
            operation_id: state.context.operation_id,
            idempotency_key: state.context.idempotency_key,
            body,
          }),
        abort,
      );
      return auditPositionOf(appended) === null ? 'failed' : 'announced';
    } catch (error) {
      return isAbortedWait(error) ? 'aborted' : 'failed';
    }
  }

  /**
   * Answers a write whose handler never started although its record may be `started`: released
   * with that declaration (which frees the key from `claimed` and from `started` alike), the model
   * hears "nothing was executed, retry" (TIMEOUT_BEFORE_EXECUTE at `gate`). Otherwise another claim
   * took the key over and may run the write (OUTCOME_UNKNOWN), or the key could not be freed: the
   * handler never ran, but the record may stay `started` until its lease runs out (TOOL_ERROR).
   */
  async function giveBackUnstarted(
    turn: Turn,
    state: CallState,
    fence: { key: string; fencing_token: number },
    gate: 'deadline' | 'idempotency' | 'approval',
    retryAfterMs: number | undefined,
    expiredApproval: ApprovalRequest | null = null,
  ): Promise<DispatchedCall> {
    const released = await releaseDeclaredNotStarted(fence, state);
    if (released === 'released') {
      // The approval expired while the write was being prepared: a new one is needed, for the
      // bound preview (`expiredApproval`) shown again.
      if (gate === 'approval') {
        state.approvalRequest = expiredApproval;
        return refuse(turn, state, gate, 'APPROVAL_INVALID');
      }
      return refuse(turn, state, gate, 'TIMEOUT_BEFORE_EXECUTE', retryAfterMs === undefined ? {} : { retryAfterMs });
    }
    return refuse(turn, state, 'idempotency', released === 'fenced' ? 'OUTCOME_UNKNOWN' : 'TOOL_ERROR');
  }

  /**
   * The idempotency store refused an input the dispatcher built (StoreInputError): a dispatcher bug,
   * never reported as a store outage. TOOL_ERROR (a person reviews it); the handler did not run.
   */
  function refuseStoreInput(turn: Turn, state: CallState): Promise<DispatchedCall> {
    state.notes.push('idempotency_store_input_rejected');
    return refuse(turn, state, 'idempotency', 'TOOL_ERROR');
  }

  async function reconcile(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
    request_sha256: Sha256Hex,
  ): Promise<DispatchedCall> {
    const key = state.context.idempotency_key as string;
    const queryStatus = tool.queryStatus;
    if (queryStatus === null) return refuse(turn, state, 'status_query', 'OUTCOME_UNKNOWN');
    const input: StatusQueryInput = withSignal(
      {
        tool_name: invocation.tool_name,
        arguments: invocation.arguments,
        principal: invocation.principal,
        deadline: invocation.deadline,
        idempotency_key: key,
        request_sha256,
      },
      abort,
    );
    // The write ran on an earlier call; what the query finds must be audited just the same.
    state.executed = true;
    const run = await runWithDeadline(queryStatus, input, abort, remainingMs(turn, invocation.deadline));
    const status = run.kind === 'returned' ? readStatusOutcome(run.value) : null;
    if (status === null || status.kind !== 'data') {
      state.notes.push(status === null ? `status_query_${run.kind}` : `status_${status.kind}`);
      return refuse(turn, state, 'status_query', 'OUTCOME_UNKNOWN');
    }
    const output = seal(turn, state, { kind: 'data', output: status.envelope }, 'receipt_reconciled');
    if (output.violations.length > 0) {
      // The downstream's account does not match this request: never pick a side automatically.
      state.violations = output.violations;
      return refuse(turn, state, 'status_query', 'STATUS_CONFLICT');
    }
    // Spec 000: `receipt_reconciled` says an explicit status query reconciled a downstream
    // receipt. Without one there is nothing to reconcile: the outcome stays unknown.
    if (output.sealed.protected_audit.downstream.receipt === null) {
      state.notes.push('status_committed_without_receipt');
      return refuse(turn, state, 'status_query', 'OUTCOME_UNKNOWN');
    }
    let result: ResultInput;
    try {
      result = { sealed_json: sealedJson(output), receipt: output.sealed.protected_audit.downstream.receipt };
    } catch {
      state.notes.push('reconcile_input_rejected');
      return refuseUnrecordable(turn, state, output, 'status_query');
    }
    try {
      const reconciled = await watchdog.watch(() => idempotencyStore.reconcile({ key, request_sha256, result }));
      if (!reconciled.ok) {
        if (reconciled.reason === 'conflict') return refuse(turn, state, 'status_query', 'STATUS_CONFLICT');
        if (reconciled.state !== 'completed') {
          state.notes.push(`reconcile_${fenceFailureOf(reconciled.reason)}`);
          return refuse(turn, state, 'status_query', 'OUTCOME_UNKNOWN');
        }
        // Completed meanwhile (another host's reconciliation, or the owner's late `complete`): the
        // receipt found here is as true only when it is the one the record holds. Two receipts
        // for one key are two accounts of the write: never pick a side.
        const agreed = await storedReceiptAgrees(key, request_sha256, result.receipt);
        if (agreed === null) {
          state.notes.push('reconciled_elsewhere_unread');
          return refuse(turn, state, 'status_query', 'OUTCOME_UNKNOWN');
        }
        if (!agreed) {
          state.notes.push('reconciled_elsewhere_other_receipt');
          return refuse(turn, state, 'status_query', 'STATUS_CONFLICT');
        }
        state.notes.push('reconciled_elsewhere');
      }
    } catch (error) {
      if (StoreInputError.isInstance(error)) {
        // The receipt is real, but no store will ever hold this reconciliation: the record stays
        // `unknown` (never run again), and instead of a success that every retry would query
        // and fail to record once more, a person reviews it (TOOL_ERROR, with the receipt audited).
        state.notes.push('reconcile_input_rejected');
        return refuseUnrecordable(turn, state, output, 'status_query');
      }
      state.notes.push('reconcile_failed');
    }
    return record(turn, state, output, 'status_query');
  }

  /**
   * Whether the completed record under `key` holds `receipt` for `request_sha256`; `null` when the
   * record cannot be read (the store failed or answered nothing completed).
   */
  async function storedReceiptAgrees(key: string, request_sha256: Sha256Hex, receipt: string | null): Promise<boolean | null> {
    let stored: Awaited<ReturnType<IdempotencyStore['get']>>;
    try {
      stored = await watchdog.watch(() => idempotencyStore.get(key));
    } catch {
      return null;
    }
    if (typeof stored !== 'object' || stored === null || stored.state !== 'completed' || stored.result === null) return null;
    return stored.request_sha256 === request_sha256 && stored.result.receipt === receipt;
  }

  async function executeRead(
    turn: Turn,
    state: CallState,
    tool: CompiledTool,
    invocation: ToolInvocation,
    abort: CallAbort,
  ): Promise<DispatchedCall> {
    if (abort.aborted || now() >= invocation.deadline) {
      return refuse(turn, state, 'deadline', 'TIMEOUT_BEFORE_EXECUTE');
    }
    const handlerInput = handlerInputOf(invocation, abort, state.context.operation_id, null, tool.proposal === null ? null : state.decisionRecord);
    state.executed = true;
    const pending = runWithDeadline(tool.handler, handlerInput, abort, remainingMs(turn, invocation.deadline));
    // A synchronous handler's answer is read at once, without a turn of the microtask queue.
    const run = pending instanceof Promise ? await pending : pending;
    if (run.kind !== 'returned') return refuse(turn, state, 'handler', 'TOOL_ERROR');
    const outcome = readHandlerOutcome(run.value, 'data');
    if (outcome.kind === 'garbage' || !declaresHandlerReasons(tool, outcome, invocation.arguments)) return refuse(turn, state, 'handler', 'TOOL_ERROR');
    if (outcome.kind === 'error') {
      // Sealed without repeats and in a fixed order, as a write handler's: the order and count a
      // read's component returns its reasons in carry nothing to the model.
      return refuse(turn, state, 'handler', outcome.code, outcome.reasons === undefined ? outcome : { ...outcome, reasons: canonicalReasons(outcome.reasons) });
    }
    const output = seal(turn, state, { kind: 'data', output: outcome.envelope }, 'fresh');
    return record(turn, state, output, output.violations.length > 0 ? 'output_contract' : 'sealed');
  }

  // ------------------------------------------------------------------------------ one turn

  async function dispatch(calls: readonly ToolCall[], context: DispatchContext): Promise<DispatchedTurn> {
    if (typeof context !== 'object' || context === null) throw new TypeError('dispatch: context is required');
    const checkedCalls = checkCalls(calls);
    const principal = checkPrincipal(context.principal);
    const approvals = checkApprovals(context.approvals);
    const deadline = checkDeadline(context.deadline);
    // Every operation id before any call runs: a bad one from the host rejects the turn with nothing executed.
    const operationIds = checkedCalls.map(() => nextOperationId());
    const signal = context.signal;
    const turn: Turn = {
      principal,
      digester: new TurnDigester(digester, principal, principalRefOf(principal)),
      approvals,
      startedAt: now(),
      deadline,
      aborts: signal === undefined ? null : new Set(),
      signal,
      trusted: new Map(),
    };
    const abortAll = (): void => {
      if (turn.aborts !== null) for (const abort of turn.aborts) abort.abort();
    };
    signal?.addEventListener('abort', abortAll, { once: true });
    let results: DispatchedCall[];
    try {
      // One call (most turns): awaited directly, without the array and promises of Promise.all.
      const [only] = checkedCalls;
      const [onlyOperationId] = operationIds;
      results =
        checkedCalls.length === 1 && only !== undefined && onlyOperationId !== undefined
          ? [await runCall(turn, only, onlyOperationId)]
          : await Promise.all(checkedCalls.map((call, index) => runCall(turn, call, operationIds[index] as string)));
    } finally {
      signal?.removeEventListener('abort', abortAll);
    }
    const { trusted } = turn;
    return {
      results,
      sealed: results.map((result) => result.sealed),
      verify: createResultVerifier((call) => trusted.get(call.call_id)),
    };
  }

  return Object.freeze({ dispatch, registry });
}

const HOLD: TrustedCheckOutcome = Object.freeze({ ok: false, code: 'FACTS_UNAVAILABLE' });

/**
 * The turn's deadline: absent → none; otherwise a finite, non-negative number of epoch
 * milliseconds of the dispatcher's clock. A fraction is fine (`performance.timeOrigin +
 * performance.now()`): it is rounded down to a whole millisecond, because a deadline is an upper
 * bound and every lease and timer derived from it must be whole milliseconds (stores refuse
 * fractions). NaN, an infinity, a negative number or a non-number is host misuse (TypeError).
 */
function checkDeadline(deadline: unknown): number {
  if (deadline === undefined) return Number.POSITIVE_INFINITY;
  if (typeof deadline !== 'number' || !Number.isFinite(deadline) || deadline < 0) {
    throw new TypeError('dispatch: context.deadline must be finite, non-negative epoch milliseconds (or absent for none)');
  }
  return Math.floor(deadline);
}

/**
 * Handler refusals that are temporary: the catalog's recovery is to wait (RATE_LIMIT), refresh
 * (STATE_CHANGED) or hold (FACTS_UNAVAILABLE), so a write's key is released rather than completed.
 */
const RETRYABLE_HANDLER_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['RATE_LIMIT', 'STATE_CHANGED', 'FACTS_UNAVAILABLE']);

/**
 * A trusted check's answer, read without trusting it: `{ ok: true }`, or a refusal whose code and
 * reasons the catalog accepts and whose reason fields the tool's input schema declares. Anything
 * else (a throw, a timeout, garbage, a reason outside the catalog or naming an undeclared field)
 * holds the call (FACTS_UNAVAILABLE): the check is the host's source of trusted facts, and a broken
 * one means the facts are not available. Nothing has started, so `not_started` stays true.
 */
function readCheckOutcome(run: DeadlineRun, fields: InputFieldTemplates, args: JsonValue): TrustedCheckOutcome {
  if (run.kind !== 'returned') return HOLD;
  try {
    const answer = run.value as { ok?: unknown; code?: unknown; reasons?: unknown } | null;
    if (typeof answer !== 'object' || answer === null) return HOLD;
    if (answer.ok === true) return { ok: true };
    if (answer.ok !== false) return HOLD;
    const { code, reasons } = answer;
    if (code !== 'NOT_FOUND' && code !== 'RULE_REJECTED' && code !== 'FACTS_UNAVAILABLE' && code !== 'STATE_CHANGED') return HOLD;
    if (reasons !== undefined && !Array.isArray(reasons)) return HOLD;
    const copied = ((reasons ?? []) as { field?: unknown; rule?: unknown }[]).map(
      (reason) => ({ field: reason.field, rule: reason.rule }) as ErrorReason,
    );
    // The catalog decides whether these reasons are allowed for the code; a check that breaks it holds.
    makeError(code, { reasons: copied });
    if (!declaresEveryField(fields, copied, args)) return HOLD;
    return { ok: false, code, reasons: copied };
  } catch {
    return HOLD;
  }
}

/**
 * Whether a proposal gate's refusal is one a write's own earlier attempt may have caused
 * (`REFUSALS_AN_EARLIER_WRITE_MAY_CAUSE`) and would be answered as such: its reasons name declared
 * fields only (otherwise the rule set is broken and the call holds, FACTS_UNAVAILABLE).
 */
function mayFollowEarlierWrite(tool: CompiledTool, state: CallState, refusal: { code: ProposalErrorCode; reasons: readonly ErrorReason[] }): boolean {
  return REFUSALS_AN_EARLIER_WRITE_MAY_CAUSE.has(refusal.code) && declaresEveryField(tool.registered.inputFields, refusal.reasons, state.arguments as JsonValue);
}

/**
 * Whether a handler's catalogued refusal names only declared argument fields. One that names
 * anything else is a broken handler (TOOL_ERROR), like any other answer outside the contract.
 */
function declaresHandlerReasons(tool: CompiledTool, outcome: ReadOutcome, args: JsonValue): boolean {
  return outcome.kind !== 'error' || declaresEveryField(tool.registered.inputFields, outcome.reasons, args);
}

/** What a handler is given: the invocation (its signal still made on first read) and the execution identity. */
function handlerInputOf(
  invocation: ToolInvocation,
  abort: CallAbort,
  operationId: string,
  idempotencyKey: string | null,
  review: ProposalDecisionRecord | null,
): HandlerInput {
  return withSignal(
    {
      tool_name: invocation.tool_name,
      arguments: invocation.arguments,
      principal: invocation.principal,
      deadline: invocation.deadline,
      operation_id: operationId,
      idempotency_key: idempotencyKey,
      review: review === null ? null : componentCopyOf(review),
    },
    abort,
  );
}

/**
 * The audit body kept when the full one was refused for a call whose handler ran: gate, status,
 * error code, delivery, and from the protected audit the principal reference, provider context,
 * tool contract, downstream ids (operation, idempotency key, receipt, status reference) and the
 * three binding digests. Every member is bounded (ids and references at most 256 characters), so
 * it stays far below any store's limit.
 */
function minimalAuditBody(sealed: SealResultOutput['sealed'], gate: DispatchGate): JsonObject {
  const audit = sealed.protected_audit;
  return {
    audit_body: 'minimal',
    gate,
    status: sealed.model_result.status,
    error_code: sealed.model_result.error?.code ?? null,
    delivery: sealed.model_result.execution.delivery,
    principal_ref: audit.principal_ref,
    provider_context: { ...audit.provider_context },
    tool_contract: { ...audit.tool_contract },
    downstream: { ...audit.downstream },
    binding: { ...audit.binding },
  };
}

/** Whether a store wait was ended by the call's abort (the host's signal or the turn's), not by the store. */
function isAbortedWait(error: unknown): boolean {
  return error instanceof StoreWaitEnded && error.reason === 'aborted';
}

/** The sequence and entry hash of what `auditLog.append` answered, or `null` when it names no entry. */
function auditPositionOf(appended: unknown): { sequence: number; entry_hash: string } | null {
  if (typeof appended !== 'object' || appended === null) return null;
  const { sequence, entry_hash } = appended as { sequence?: unknown; entry_hash?: unknown };
  return Number.isSafeInteger(sequence) && (sequence as number) >= 1 && isSha256Hex(entry_hash) ? { sequence: sequence as number, entry_hash } : null;
}

/** RFC 8785 text of a whole sealed package, reusing the canonical model result ("model_result" sorts first). */
function sealedJson(output: SealResultOutput): string {
  // A projection that cannot be canonicalized throws here, and the completion records the failure.
  const protectedAudit = output.canonical_protected_audit ?? canonicalize(output.sealed.protected_audit);
  return `{"model_result":${output.canonical_model_result},"protected_audit":${protectedAudit}}`;
}

/** Keeps only the proposal's own fields of the arguments (the input contract may add more around it). */
function projectProposal(args: JsonObject, fields: readonly string[] | null): JsonObject {
  if (fields === null) return args;
  const proposal: JsonObject = {};
  for (const field of fields) {
    const value = args[field];
    if (value !== undefined && Object.hasOwn(args, field)) proposal[field] = value;
  }
  return proposal;
}
