import type { AuditLog, Clock, IdempotencyStore } from '@toolseal/audit';
import type {
  PrincipalContext,
  ResultVerifier,
  SealedResult,
  ToolCall,
} from '@toolseal/contracts';
import type { Digester } from '@toolseal/digests';
import type { ProposalDecisionRecord } from '@toolseal/proposal';
import type { OutputViolation, ToolRegistry } from '@toolseal/result';
import type { Approval, ApprovalRequest } from './approval.js';
import type { DispatcherTool, RateLimit } from './dispatcher-tool.js';

/** The stores a dispatcher writes to (`createMemoryStores`, `openSqliteStores`, `openPostgresStores`). */
export interface DispatcherStores {
  /** The hash-chained audit log: one `sealed_call` entry per call, and a `write_started` entry before a write's handler runs. */
  auditLog: AuditLog;
  /** Idempotency records of writes. */
  idempotencyStore: IdempotencyStore;
}

/** Everything a host configures, once, at start-up. */
export interface DispatcherOptions {
  /** The tool registry (`createToolRegistry`): contracts compiled once. */
  registry: ToolRegistry;
  /** Exactly one entry per registered tool. */
  tools: readonly DispatcherTool[];
  /** Audit log and idempotency store. */
  stores: DispatcherStores;
  /** The digester every binding is made with (keyed HMAC where storage is not trusted). */
  digester: Digester;
  /** Time source for deadlines, approvals, rate limits and `observed_at` of errors. Default: system clock. */
  clock?: Clock;
  /** Makes the operation id of each call (1 to 128 characters). Default: `crypto.randomUUID`. */
  operationId?: () => string;
  /** This host's name in idempotency records (diagnostics). Default: `toolseal-<random uuid>`. */
  owner?: string;
  /** Default token bucket per principal and tool; tools may override it. Default: none. */
  rateLimit?: RateLimit;
  /** How long an idempotency claim may wait before the handler starts, in ms. Default 30 000. */
  leaseMs?: number;
  /** Deadline of a handler when its tool sets none, in ms. Default 30 000. */
  defaultDeadlineMs?: number;
  /**
   * Added to a started write's remaining deadline for its idempotency lease, in ms: another host
   * treats the write as outcome unknown only after the handler's deadline plus this margin.
   * Default 5 000.
   */
  leaseMarginMs?: number;
  /**
   * The longest the dispatcher waits for one store call (idempotency `claim`, `markStarted`,
   * `complete`, `release`, `markUnknown`, `reconcile`, `get`, `findUnresolved`, `findCompleted`; audit `append`), in ms: one that has not
   * settled by then (after between 1x and 1.25x this, plus up to 5 ms of timer rounding for small
   * values) is treated exactly like one that threw. It
   * may still apply later (README, "Store calls that do not answer"). Default 10 000.
   */
  storeTimeoutMs?: number;
  /**
   * With a keyed `digester`, an audit log that reports `keyed: false` (a durable store opened
   * without the digester, as the default opens it) is refused at start-up, since its chain is not
   * keyed as the host meant. `true` keeps such a log anyway: an existing unkeyed chain no longer
   * verifies once its store is reopened with the key, so a deployment upgrading to this check
   * either starts a new log opened with the keyed digester or sets this. Default `false`.
   */
  acceptUnkeyedAuditChain?: boolean;
}

/** The trusted context of one turn, from the host. */
export interface DispatchContext {
  /** The authenticated principal, from the host's authentication: never from arguments or tool output. */
  principal: PrincipalContext;
  /**
   * Approvals a person gave for exact requests of this principal (host-issued, trusted). Read once,
   * before any call runs, into private frozen copies: changing the list or its objects during the
   * turn changes nothing, and a getter's first answer is the one used.
   */
  approvals?: readonly Approval[];
  /**
   * Deadline of the whole turn, epoch ms of the dispatcher's clock: finite and non-negative (a
   * fraction is rounded down to a whole millisecond). Absent: only the tools' own deadlines apply.
   */
  deadline?: number;
  /** Aborts every call of the turn that has not answered yet. */
  signal?: AbortSignal;
}

/**
 * Where a call's fate was decided: the gate that refused it, or `sealed` for a fresh execution.
 * `idempotency` also answers replays (`local_replay`), `status_query` reconciliations. `internal`:
 * an exception no reader caught (a bug, or a component answering far outside its contract); the
 * call answers TOOL_ERROR and is audited, and the other calls of the turn are unaffected.
 */
export type DispatchGate =
  | 'registry'
  | 'rate_limit'
  | 'guard'
  | 'input_schema'
  | 'trusted_checks'
  | 'approval'
  | 'idempotency'
  | 'recheck'
  | 'deadline'
  | 'handler'
  | 'output_contract'
  | 'status_query'
  | 'audit'
  | 'internal'
  | 'sealed';

/** Where a call's audit entry went in the chain. */
export interface AuditPosition {
  /** Position in the chain. */
  sequence: number;
  /** The entry's hash. */
  entry_hash: string;
  /**
   * `full`: the entry holds the whole protected audit, violations, decision record and approval.
   * `minimal`: the full entry was refused (too large, or the store failed once) for a call whose
   * handler ran, and a second append kept what reconciliation needs: gate, status, error code,
   * the three binding digests, principal reference, provider context, contract and downstream ids.
   */
  body: 'full' | 'minimal';
}

/** One call of a turn, sealed. Everything except `sealed.model_result` is for the host only. */
export interface DispatchedCall {
  /** The provider call id: correlate by it, never by position. */
  call_id: string;
  /** The tool name the model called (possibly unregistered). */
  tool_name: string;
  /** Where the call's fate was decided. */
  gate: DispatchGate;
  /** The two projections. Hand `sealed` to the adapter; only `model_result` reaches the model. */
  sealed: SealedResult;
  /** RFC 8785 text of `sealed.model_result`, exactly the bytes `result_sha256` covers. */
  canonical_model_result: string;
  /** The bound preview to show a person (APPROVAL_REQUIRED and APPROVAL_INVALID only). */
  approval_request: ApprovalRequest | null;
  /** The proposal gate's protected decision record, when the tool has one and it ran. */
  decision_record: ProposalDecisionRecord | null;
  /** Why a handler output (or a status query's account) was refused: protected, never shown to the model. */
  violations: readonly OutputViolation[];
  /**
   * The call's audit entry; `null` only when the append failed (then the call answers TOOL_ERROR).
   * For a call whose handler ran, a failed append is retried once with a minimal body first.
   */
  audit_entry: AuditPosition | null;
}

/** One dispatched turn. */
export interface DispatchedTurn {
  /** One per call, in call order; correlate by `call_id`. */
  results: DispatchedCall[];
  /** `results[i].sealed`, for `adapter.formatToolResults({ results })`. */
  sealed: SealedResult[];
  /**
   * Recomputes every binding of a package from this turn's trusted context (principal, call,
   * operation, idempotency key, validated arguments, registry): pass it to the adapter.
   */
  verify: ResultVerifier;
}

/** The pipeline of one host. */
export interface Dispatcher {
  /**
   * Runs every gate for every call, concurrently, and seals each call on its own. Never rejects for
   * anything a model, handler, store or downstream system did; rejects with a `TypeError` before any
   * call runs for host misuse (malformed principal, approvals, deadline or calls, a repeated call
   * id, a bad `operationId()`). The one other cause of a rejection is a broken digester: one that throws
   * computing the principal reference (before any call runs), or that makes sealing throw even for
   * a call's TOOL_ERROR fallback, when there is nothing left to answer that call with (README, gate
   * `internal`).
   */
  dispatch(calls: readonly ToolCall[], context: DispatchContext): Promise<DispatchedTurn>;
  /** The registry the dispatcher was built with. */
  readonly registry: ToolRegistry;
}
