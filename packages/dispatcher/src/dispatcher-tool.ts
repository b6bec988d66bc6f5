import type { ErrorReason, JsonObject, PrincipalContext, Sha256Hex } from '@toolseal/contracts';
import type { JsonLimits } from '@toolseal/guard';
import type { ProposalDecisionRecord, ProposalValidator } from '@toolseal/proposal';
import type { HandlerData } from '@toolseal/result';

/** What every handler, trusted check and status query is given. All of it is trusted. */
export interface ToolInvocation {
  /** The registered tool name. */
  tool_name: string;
  /**
   * The arguments after the guard and the input contract accepted them: a private, deeply frozen
   * copy. The same value is bound into `request_sha256`.
   */
  arguments: JsonObject;
  /** The authenticated principal from the host's context (frozen). Never from arguments. */
  principal: PrincipalContext;
  /** Aborted when the call's deadline passes or the host aborts the turn. */
  signal: AbortSignal;
  /** The call's deadline, epoch milliseconds of the dispatcher's clock. */
  deadline: number;
}

/** What a handler is given: the invocation plus the execution identity. */
export interface HandlerInput extends ToolInvocation {
  /** The dispatcher's id of this execution attempt (bound into the call digest). */
  operation_id: string;
  /**
   * The idempotency key of a write (pass it to the downstream system so it can deduplicate);
   * `null` for reads.
   */
  idempotency_key: string | null;
  /**
   * For a tool with a proposal gate, the protected record of the check the call passed last (a
   * write's recheck right before this run: `stage: 'recheck'`, `decision: 'ready_for_review'`,
   * with the rule version and the digest of the facts snapshot it judged); `null` for other tools.
   * Frozen. The recheck cannot reserve what it checked: calls of other intents may pass it at the
   * same time, so the effect must enforce its own state transition (a conditional write on the state
   * the rules read, answering STATE_CHANGED when it no longer holds; README, "Proposal gate").
   */
  review: ProposalDecisionRecord | null;
}

/**
 * Codes a handler or trusted check may answer with. Everything else a handler wants to say is data
 * (checked by the output contract) or a failure (TOOL_ERROR, decided by the dispatcher).
 */
export type HandlerErrorCode = 'NOT_FOUND' | 'RULE_REJECTED' | 'FACTS_UNAVAILABLE' | 'STATE_CHANGED' | 'RATE_LIMIT';

/** A catalogued refusal from a handler: the downstream system said no and nothing happened. */
export interface HandlerError {
  kind: 'error';
  /** The catalog code; its status, outcome, recovery and message come from the catalog. */
  code: HandlerErrorCode;
  /** Required for RATE_LIMIT (1 ms to 1 hour); not allowed otherwise. */
  retryAfterMs?: number;
  /** Finite reasons the catalog allows for `code` (RULE_REJECTED: `RULE_REJECTION_RULES`). */
  reasons?: readonly ErrorReason[];
}

/**
 * What a handler returns: `{ kind: 'data', ...HandlerData }` (the exact envelope of
 * `@toolseal/result`'s `HandlerData`; `kind` is removed and everything else is checked by the
 * output contract, so an extra top-level `status` is refused, never merged), or a `HandlerError`.
 * Anything else, a throw, or no answer before the deadline becomes a catalogued error.
 */
export type HandlerOutcome = ({ kind: 'data' } & HandlerData) | HandlerError;

/** Runs the tool. Called at most once per idempotency key for writes. */
export type ToolHandler = (input: HandlerInput) => HandlerOutcome | Promise<HandlerOutcome>;

/** What a trusted check answers. */
export type TrustedCheckOutcome =
  | { ok: true }
  | {
      ok: false;
      /**
       * NOT_FOUND (neutral: the same for "does not exist" and "not yours"), RULE_REJECTED (with
       * reasons), FACTS_UNAVAILABLE (hold) or STATE_CHANGED (refresh).
       */
      code: Exclude<HandlerErrorCode, 'RATE_LIMIT'>;
      /** RULE_REJECTED reasons (`RULE_REJECTION_RULES`, contract-declared field pointers). */
      reasons?: readonly ErrorReason[];
    };

/**
 * A host check against trusted facts (ownership, tenant, policy) run before approval and
 * execution, for reads and writes alike. It must decide from the principal and its own trusted
 * data; `arguments` only names what is asked for. A throw or an answer outside this shape holds the
 * call (FACTS_UNAVAILABLE).
 */
export type TrustedCheck = (input: ToolInvocation) => TrustedCheckOutcome | Promise<TrustedCheckOutcome>;

/** The answer of a status query about a write whose outcome is unknown. */
export type StatusQueryOutcome =
  /**
   * The downstream system has the write: its data (checked by the output contract) and its
   * receipt, which is required. `receipt_reconciled` means a downstream receipt was reconciled
   * (spec 000), so an answer without one (absent or `null`) leaves the outcome unknown.
   */
  | ({ kind: 'committed' } & Omit<HandlerData, 'receipt'> & { receipt: string })
  /** The downstream system has no record of it (yet): the outcome stays unknown. */
  | { kind: 'not_committed' }
  /** The status could not be determined. */
  | { kind: 'unknown' };

/** What a status query is given. */
export interface StatusQueryInput extends ToolInvocation {
  /** The idempotency key the write ran under: what the downstream system deduplicates by. */
  idempotency_key: string;
  /** The request digest the key is bound to. */
  request_sha256: Sha256Hex;
}

/** Asks the downstream system whether a write happened (spec: "query explicitly first"). */
export type StatusQuery = (input: StatusQueryInput) => StatusQueryOutcome | Promise<StatusQueryOutcome>;

/**
 * The proposal gate of a tool (spec 002): a `@toolseal/proposal` validator run after the input
 * contract, on the proposal part of the arguments, and rechecked right before a write executes.
 */
export interface ProposalGate {
  /** The validator (built once at start-up). */
  validator: ProposalValidator<unknown, unknown>;
  /**
   * The top-level argument names that form the proposal. The tool's input contract may add
   * fields around the proposal (a `reason`, say) that the proposal contract, which rejects unknown
   * properties, does not know: the validator sees only these fields (those present). Default: the
   * whole arguments object.
   */
  fields?: readonly string[];
}

/**
 * One tool as the dispatcher runs it. The registry (`@toolseal/result`) holds its contracts; this
 * adds the code and the policy. Checked once, at start-up.
 */
export interface DispatcherTool {
  /** The registered tool name; every registry entry needs exactly one `DispatcherTool`. */
  name: string;
  /** Runs the tool. */
  handler: ToolHandler;
  /** Trusted checks (access, policy) for any tool. */
  check?: TrustedCheck;
  /** The proposal gate (writes that carry a model-made proposal). */
  proposal?: ProposalGate;
  /**
   * Writes only: whether a person must approve each request (bound to its `request_sha256`).
   * Default `required`.
   */
  approval?: 'required' | 'none';
  /**
   * Writes only: `true` declares that this tool's trusted check and proposal gate answer
   * RULE_REJECTED or STATE_CHANGED only for eligibility a write of this very tool consumes (a
   * refund's remaining amount, an order's state), never for access or policy (a revoked role, a
   * suspended account: answer NOT_FOUND for those). A call refused so is then first answered from
   * an earlier attempt of the exact request, when one may have run (its replay or its status
   * query), instead of the refusal: the retry of a committed write is not told `not_started`, and
   * an unknown outcome's status is still queried. Default `false`: every such refusal is answered
   * as it is, since the dispatcher cannot tell consumed eligibility from a policy denial (README,
   * "Approvals and earlier attempts").
   */
  earlierAttemptAfterRefusal?: boolean;
  /**
   * Writes: reconciles an unknown outcome through the downstream receipt. Without it, a write
   * whose outcome became unknown stays OUTCOME_UNKNOWN for its key (a person reconciles it).
   */
  queryStatus?: StatusQuery;
  /** How long the handler may run, in ms (default: the dispatcher's `defaultDeadlineMs`). */
  deadlineMs?: number;
  /** Guard limits for the raw arguments (default: the guard's `DEFAULT_JSON_LIMITS`). */
  argumentLimits?: Partial<JsonLimits>;
  /**
   * This tool's token bucket, overriding the dispatcher's `rateLimit`; `false` switches rate
   * limiting off for it.
   */
  rateLimit?: RateLimit | false;
}

/** A token bucket per principal and tool. */
export interface RateLimit {
  /** Most calls in a burst (bucket size), a positive integer. */
  capacity: number;
  /** Tokens added per second, a positive number. */
  refillPerSecond: number;
}
