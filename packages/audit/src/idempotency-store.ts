import type { Sha256Hex } from '@toolseal/contracts';

/**
 * Where an idempotency record is in its life:
 *
 * - `claimed`: an owner holds a lease; the handler has NOT started. An expired lease may be taken
 *   over by another claim (a conditional write that bumps the fencing token).
 * - `started`: the handler may have run. From here the handler is never run again for this key.
 *   If the lease expires before `complete`/`markUnknown`, the next claim turns it into `unknown`.
 * - `completed`: the sealed result and downstream receipt are stored; claims replay it.
 * - `unknown`: the handler started and never reported back. Recovery is `query_status`; only
 *   `reconcile` (a status query that found the downstream receipt) moves it to `completed`.
 * - `released`: the owner gave the claim back before the handler started, or after `markStarted`
 *   when the handler itself positively declared that it executed nothing (a catalogued
 *   not-started refusal: RATE_LIMIT, TIMEOUT_BEFORE_EXECUTE, FACTS_UNAVAILABLE, STATE_CHANGED);
 *   the next claim with the same request digest claims it afresh (new fencing token). Never
 *   reached from `unknown` or `completed`.
 */
export type IdempotencyState = 'claimed' | 'started' | 'completed' | 'unknown' | 'released';

/** How a stored result was obtained: the handler's own report, or a status query's receipt. */
export type StoredDelivery = 'fresh' | 'receipt_reconciled';

/** What the dispatcher hands a store when a call completes. */
export interface ResultInput {
  /**
   * The canonical JSON text (RFC 8785) of the SealedResult, stored and returned byte for byte.
   * The store never parses or re-serializes it.
   */
  sealed_json: string;
  /** The downstream system's receipt for the committed write, or `null`. */
  receipt: string | null;
}

/** A result as stored in a `completed` record. */
export interface StoredResult extends ResultInput {
  /** `fresh` from `complete`, `receipt_reconciled` from `reconcile`. */
  delivery: StoredDelivery;
  /** When the record completed (epoch ms from the injected clock). */
  completed_at: number;
}

/** One idempotency record, as `get` returns it. Times are epoch ms from the injected clock. */
export interface IdempotencyRecord {
  /** The idempotency key (1..256 characters). */
  key: string;
  /**
   * The request digest of the claim that wrote the record (its first claim, or the claim that
   * last took a free record over). It binds the tool contract's revisions.
   */
  request_sha256: Sha256Hex;
  /**
   * The revision-free intent digest (tenant, subject, tool, arguments) that claim carried, or
   * `null`: claimed without one, or written by a store schema older than the field. A deploy that
   * bumps a contract revision changes `request_sha256` for the same intent; this digest does not,
   * so `findUnresolved({ intent_sha256 })` still finds an earlier unresolved attempt of it. Set
   * together with `request_sha256` by a claim, and never changed by any other transition.
   */
  intent_sha256: Sha256Hex | null;
  state: IdempotencyState;
  /** The host that holds or last held the claim (diagnostics only; fencing uses the token). */
  owner: string;
  /**
   * The first claim of a record gets the clock reading or the store's token floor (the highest
   * token of any record it deleted), whichever is higher, plus one, and every later claim of it one
   * more (takeover, claim after release): a key's tokens never repeat, not even after retention
   * purged a record, the clock stepped back and the key was claimed afresh (README, "Fencing
   * tokens").
   */
  fencing_token: number;
  /** Until when the owner's lease runs (claimed: to start; started: to report back). */
  lease_expires_at: number;
  created_at: number;
  updated_at: number;
  /** The stored result: present exactly when `state` is `completed`. */
  result: StoredResult | null;
}

export interface ClaimInput {
  /** The idempotency key (1..256 characters, no NUL, no unpaired surrogate). */
  key: string;
  /** The request digest (`binding.request_sha256`) of the call that wants to run. */
  request_sha256: Sha256Hex;
  /**
   * Optional: the call's intent digest, free of contract revisions (64 lowercase hex). Stored
   * (absent: `null`) whenever this claim writes the record's `request_sha256`, a new record or a
   * takeover of a free one; not compared by the claim (conflicts are by `request_sha256`). It lets
   * `findUnresolved` find this attempt after a deploy bumped a revision and so the request digest.
   */
  intent_sha256?: Sha256Hex | null;
  /** Who claims (a host or process id), for diagnostics. */
  owner: string;
  /** How long the claim may sit before `markStarted` (1 ms to `MAX_LEASE_MS`, a day). */
  lease_ms: number;
}

/** The answer to a claim. Exactly one of five, decided atomically. */
export type ClaimOutcome =
  /** Run it: call `markStarted` right before the handler, then `complete`/`markUnknown`/`release`. */
  | { kind: 'claimed'; fencing_token: number; lease_expires_at: number; took_over: boolean }
  /** Another owner holds a live lease (claimed or running). Retry after `retry_after_ms`. */
  | { kind: 'in_progress'; lease_expires_at: number; retry_after_ms: number }
  /**
   * The call already completed. The dispatcher may replay `result` as `delivery: local_replay`
   * only after re-running every authorization gate for the current call.
   */
  | { kind: 'completed'; result: StoredResult; delivery: 'local_replay' }
  /**
   * The handler started and never reported back: it may or may not have committed. Answer
   * OUTCOME_UNKNOWN with recovery `query_status`; NEVER run the handler again.
   */
  | { kind: 'outcome_unknown'; recovery: 'query_status' }
  /**
   * The key is held by a different request digest: IDEMPOTENCY_CONFLICT (human review), or, under
   * a dispatcher's intent key, where the record is the same intent's under other contract
   * revisions, STATUS_CONFLICT (outcome unknown, human review).
   */
  | { kind: 'conflict' };

/** Why a fenced write was refused. */
export type FenceFailure =
  /** No record for the key. */
  | 'not_found'
  /** The caller's fencing token is stale: another claim took the key over. */
  | 'fenced'
  /** The record is not in a state this transition starts from. */
  | 'wrong_state'
  /** `markStarted` after the claim's lease ran out: do not start the handler; `release` instead. */
  | 'lease_expired'
  /** `reconcile` with a different request digest. */
  | 'conflict';

/** The answer to a fenced write. A refused write changed nothing. */
export type FencedOutcome =
  | { ok: true; record: IdempotencyRecord }
  | { ok: false; reason: FenceFailure; state: IdempotencyState | null };

export interface FencedInput {
  key: string;
  /** The token from the `claimed` outcome. */
  fencing_token: number;
}

export interface ReleaseInput extends FencedInput {
  /**
   * `true` also allows started → released: ONLY when the handler itself returned a catalogued
   * refusal stating that nothing was executed (RATE_LIMIT, TIMEOUT_BEFORE_EXECUTE,
   * FACTS_UNAVAILABLE, STATE_CHANGED with outcome `not_started`). Never for a deadline, a thrown
   * error or any other result: those are `markUnknown`. Absent or `false`: claimed → released only.
   */
  handler_declared_not_started?: boolean;
}

export interface MarkStartedInput extends FencedInput {
  /**
   * How long the handler may run before other claims treat the record as outcome unknown
   * (1 ms to `MAX_LEASE_MS`, a day). Set it above the handler deadline.
   */
  lease_ms: number;
}

export interface CompleteInput extends FencedInput {
  result: ResultInput;
}

export interface ReconcileInput {
  key: string;
  /** Must equal the record's digest; otherwise `conflict`. */
  request_sha256: Sha256Hex;
  /** The sealed result built from the receipt the status query found. */
  result: ResultInput;
}

/** What `findUnresolved` looks up: EXACTLY ONE of `request_sha256` and `intent_sha256`, and a limit. */
export interface FindUnresolvedInput {
  /** The request digest (`binding.request_sha256`) whose unresolved attempts are wanted. */
  request_sha256?: Sha256Hex;
  /**
   * The intent digest (the records' `intent_sha256`) whose unresolved attempts are wanted, whatever
   * their request digest: it finds an attempt made before a deploy bumped a contract revision.
   * Records claimed without an intent digest are never found by it.
   */
  intent_sha256?: Sha256Hex;
  /** At most this many records (1..`MAX_FIND_UNRESOLVED_LIMIT`). */
  limit: number;
}

/** A checked `findUnresolved` input (`checkFindUnresolvedInput`): exactly one digest, and the limit. */
export type CheckedFindUnresolvedInput =
  | { request_sha256: Sha256Hex; limit: number }
  | { intent_sha256: Sha256Hex; limit: number };

/** What `findCompleted` looks up: the completed records of one intent digest, and a limit. */
export interface FindCompletedInput {
  /**
   * The intent digest (the records' `intent_sha256`) whose completed records are wanted, under any
   * key and any request digest. Records claimed without an intent digest are never found by it.
   */
  intent_sha256: Sha256Hex;
  /** At most this many records (1..`MAX_FIND_UNRESOLVED_LIMIT`). */
  limit: number;
}

export interface PurgeInput {
  /** Retention: records that finished at least this long ago (ms, by the injected clock) go. */
  older_than_ms: number;
}

/**
 * Idempotency records for writes: the specification's delivery and recovery rules. Every method
 * is atomic on its own; implementations must give the same answers as the in-memory store (the
 * conformance suite checks it). See the package README for the state diagram.
 */
export interface IdempotencyStore {
  /** Atomically claims `key` for `request_sha256`, or says why not. */
  claim(input: ClaimInput): Promise<ClaimOutcome>;
  /** claimed → started, just before the handler runs; renews the lease to `now + lease_ms`. */
  markStarted(input: MarkStartedInput): Promise<FencedOutcome>;
  /** started → completed with the sealed result and receipt (`delivery: fresh`). */
  complete(input: CompleteInput): Promise<FencedOutcome>;
  /**
   * claimed → released: the handler definitely did not start (e.g. timeout before execute).
   * With `handler_declared_not_started: true`, also started → released: the handler ran and
   * positively declared that it executed nothing (see `ReleaseInput`). Fenced like every write;
   * never from `unknown` or `completed` (`wrong_state`).
   */
  release(input: ReleaseInput): Promise<FencedOutcome>;
  /** started → unknown: the handler started and did not report back (deadline). */
  markUnknown(input: FencedInput): Promise<FencedOutcome>;
  /** unknown → completed (`delivery: receipt_reconciled`): a status query found the receipt. */
  reconcile(input: ReconcileInput): Promise<FencedOutcome>;
  /** The record for `key`, or `undefined`. */
  get(key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Optional. The records of one request digest (`request_sha256`) or of one intent digest
   * (`intent_sha256`; exactly one of the two), under any key, whose write may be running or may
   * have run without a known outcome (`isUnresolved`: `started`, `unknown`, or `claimed` with a
   * live lease), oldest first (`created_at`, then `key` in code-unit order), at most `limit`. The
   * dispatcher asks it before a write under an approval's key, so that an approval under a new key
   * never writes the same request again while an earlier attempt is unknown or running (spec 000:
   * `request_sha256` leaves the key out so that the same intent under a new key still matches).
   * The request digest also binds the tool contract's revisions, so after a deploy that bumps one
   * an earlier attempt of the same intent has another request digest: looking up by the
   * revision-free `intent_sha256` (stored by `claim`) still finds it. A read: no transition, no
   * write. A store that lacks it loses only that protection (see the dispatcher's README); stores
   * that have it run `findUnresolvedConformanceCases`.
   */
  findUnresolved?(input: FindUnresolvedInput): Promise<IdempotencyRecord[]>;
  /**
   * Optional. The `completed` records of one intent digest, under any key and any request digest,
   * oldest first (`created_at`, then `key` in code-unit order), at most `limit`. The dispatcher
   * asks it before a write under an intent key (a tool without approval), so that an intent that
   * completed under an approval's key, before the tool's approval mode changed from `'required'`
   * to `'none'`, does not write again under its intent key; and after an eligibility refusal of a
   * call no approval names (a write tool declaring `earlierAttemptAfterRefusal`), so that the retry
   * of a committed write is answered with its result. A read: no transition, no write. A store that
   * lacks it loses only those protections (see the dispatcher's README); stores that have it run
   * `findCompletedConformanceCases`.
   */
  findCompleted?(input: FindCompletedInput): Promise<IdempotencyRecord[]>;
  /**
   * Retention: deletes `completed` and `released` records that finished, and `claimed` records
   * whose lease ran out (never started), at least `older_than_ms` ago (`isPurgeable`; fencing
   * tokens play no part). Never deletes `started` or `unknown` records.
   * Raises the store's token floor to the highest fencing token it deletes, atomically with the
   * deletion, so that a key's next first claim starts above it. Returns how many were deleted.
   */
  purgeExpired(input: PurgeInput): Promise<number>;
}
