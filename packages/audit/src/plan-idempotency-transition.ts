import {
  checkIdentifier,
  checkLeaseMs,
  checkPositiveInteger,
  checkSha256Hex,
  checkStorableText,
} from './check-store-input.js';
import type {
  ClaimInput,
  ClaimOutcome,
  CompleteInput,
  FencedInput,
  FencedOutcome,
  IdempotencyRecord,
  IdempotencyState,
  MarkStartedInput,
  ReconcileInput,
  ReleaseInput,
  ResultInput,
} from './idempotency-store.js';
import { StoreInputError } from './store-input-error.js';

/** Longest sealed result a store accepts, in UTF-16 code units (about 4 MiB of ASCII). */
export const MAX_SEALED_JSON_LENGTH = 4 * 1024 * 1024;
/** Longest downstream receipt a store accepts (matches `Downstream.receipt`). */
export const MAX_RECEIPT_LENGTH = 256;
/** Longest owner name a store accepts. */
export const MAX_OWNER_LENGTH = 128;

/** One idempotency operation, with its input already checked. */
export type IdempotencyOperation =
  | { type: 'claim'; input: ClaimInput }
  | { type: 'markStarted'; input: MarkStartedInput }
  | { type: 'complete'; input: CompleteInput }
  | { type: 'release'; input: ReleaseInput }
  | { type: 'markUnknown'; input: FencedInput }
  | { type: 'reconcile'; input: ReconcileInput };

/**
 * The write a store must apply atomically for a planned transition: insert only if the key is
 * absent, or update only if the stored record still has `expected` (fencing token and state; the
 * pair never repeats for a key, so it works as a version). When the condition fails, the store
 * re-reads the record and plans again.
 */
export type PlannedWrite =
  | { kind: 'insert'; record: IdempotencyRecord }
  | { kind: 'update'; record: IdempotencyRecord; expected: { fencing_token: number; state: IdempotencyState } };

export type IdempotencyPlan<O> = { outcome: O; write: PlannedWrite | null };

/**
 * The whole idempotency state machine as a pure function of (stored record, operation, now, and
 * for a claim the store's token floor). Every store (in-memory, SQLite, PostgreSQL, third-party)
 * reads the record (and, for a claim, its token floor), calls this, and applies `write` as a
 * conditional write; that is what keeps their answers identical.
 *
 * `tokenFloor` (claims only, default 0) is the highest fencing token of any record the store has
 * deleted (README, "Fencing tokens"): a key's first claim gets `max(now, tokenFloor) + 1`, so the
 * key's new record never hands out a token its purged record already did, however the clock
 * moved. It must be a non-negative safe integer read no earlier than the deletion of the key's
 * previous record (else `RangeError`: a broken store, not a caller's input). Later claims of a
 * record add one to its token and do not use it.
 */
export function planIdempotencyTransition(
  record: IdempotencyRecord | undefined,
  operation: { type: 'claim'; input: ClaimInput },
  now: number,
  tokenFloor?: number,
): IdempotencyPlan<ClaimOutcome>;
export function planIdempotencyTransition(
  record: IdempotencyRecord | undefined,
  operation: Exclude<IdempotencyOperation, { type: 'claim' }>,
  now: number,
): IdempotencyPlan<FencedOutcome>;
export function planIdempotencyTransition(
  record: IdempotencyRecord | undefined,
  operation: IdempotencyOperation,
  now: number,
  tokenFloor = 0,
): IdempotencyPlan<ClaimOutcome | FencedOutcome> {
  switch (operation.type) {
    case 'claim':
      return planClaim(record, operation.input, now, checkTokenFloor(tokenFloor));
    case 'markStarted':
      return planFenced(record, operation.input, ['claimed'], (current) => {
        // A claim whose lease ran out may already be someone else's to take over: never start.
        if (now >= current.lease_expires_at) return 'lease_expired';
        return { ...current, state: 'started', lease_expires_at: now + operation.input.lease_ms, updated_at: now };
      });
    case 'complete':
      return planFenced(record, operation.input, ['started'], (current) => ({
        ...current,
        state: 'completed',
        updated_at: now,
        result: { ...operation.input.result, delivery: 'fresh', completed_at: now },
      }));
    case 'release':
      // From `started` only on the handler's own positive declaration that nothing executed; the
      // lease does not matter (the fencing token proves no one else has taken the key over).
      return planFenced(record, operation.input, operation.input.handler_declared_not_started === true ? ['claimed', 'started'] : ['claimed'], (current) => ({
        ...current,
        state: 'released',
        updated_at: now,
      }));
    case 'markUnknown':
      return planFenced(record, operation.input, ['started'], (current) => ({
        ...current,
        state: 'unknown',
        updated_at: now,
      }));
    case 'reconcile':
      return planReconcile(record, operation.input, now);
  }
}

function planClaim(
  record: IdempotencyRecord | undefined,
  input: ClaimInput,
  now: number,
  tokenFloor: number,
): IdempotencyPlan<ClaimOutcome> {
  const lease_expires_at = now + input.lease_ms;
  if (record === undefined) {
    // The key may have had a record before that retention purged, and an owner of that record (a
    // stalled host whose late markStarted or release is still on its way) must never find its
    // token valid again. The floor is at least every token of every record the store deleted, so
    // the new record starts above them all, whatever the clock did since (a step back, another
    // host's skew): the clock alone gave a repeated token once it read more than the purge's
    // `older_than_ms` behind the purging host (README, "Fencing tokens").
    const fencing_token = firstFencingToken(now, tokenFloor);
    const fresh: IdempotencyRecord = {
      key: input.key,
      request_sha256: input.request_sha256,
      intent_sha256: input.intent_sha256 ?? null,
      state: 'claimed',
      owner: input.owner,
      fencing_token,
      lease_expires_at,
      created_at: now,
      updated_at: now,
      result: null,
    };
    return {
      outcome: { kind: 'claimed', fencing_token, lease_expires_at, took_over: false },
      write: { kind: 'insert', record: fresh },
    };
  }
  const expected = { fencing_token: record.fencing_token, state: record.state };
  const leaseLive = now < record.lease_expires_at;
  // Nothing ran under the key and nobody holds it: a released record, or a claim whose lease ran
  // out before it started. Such a record is taken over under the request that claims it now (a
  // contract revision bumped since, say), since no effect exists that a second request could repeat.
  const free = record.state === 'released' || (record.state === 'claimed' && !leaseLive);
  // Same key, different business intent while something may have run or is running: never
  // replay, never run.
  if (!free && record.request_sha256 !== input.request_sha256) return { outcome: { kind: 'conflict' }, write: null };

  switch (record.state) {
    case 'completed':
      if (record.result === null) throw new Error('completed idempotency record without a result');
      return { outcome: { kind: 'completed', result: record.result, delivery: 'local_replay' }, write: null };
    case 'unknown':
      return { outcome: { kind: 'outcome_unknown', recovery: 'query_status' }, write: null };
    case 'started':
      if (leaseLive) return { outcome: inProgress(record, now), write: null };
      // The handler started and its owner never reported back within its lease.
      return {
        outcome: { kind: 'outcome_unknown', recovery: 'query_status' },
        write: { kind: 'update', expected, record: { ...record, state: 'unknown', updated_at: now } },
      };
    case 'claimed':
    case 'released': {
      if (record.state === 'claimed' && leaseLive) return { outcome: inProgress(record, now), write: null };
      // Nothing ran: take the key over. The new token fences the previous owner's writes.
      const fencing_token = record.fencing_token + 1;
      return {
        outcome: { kind: 'claimed', fencing_token, lease_expires_at, took_over: record.state === 'claimed' },
        write: {
          kind: 'update',
          expected,
          record: {
            ...record,
            // The claim writes its request, and with it its intent digest (null when it has none).
            request_sha256: input.request_sha256,
            intent_sha256: input.intent_sha256 ?? null,
            state: 'claimed',
            owner: input.owner,
            fencing_token,
            lease_expires_at,
            updated_at: now,
          },
        },
      };
    }
  }
}

/**
 * The fencing token of a key's first claim (no record): the clock reading or the store's token
 * floor, whichever is higher, plus one. Later claims of the same record add one (takeover, claim
 * after release). Clock readings are at most 8.64e15 and `checkTokenFloor` keeps the floor below
 * `Number.MAX_SAFE_INTEGER`, so the token is a safe integer.
 */
function firstFencingToken(now: number, tokenFloor: number): number {
  return Math.max(now, tokenFloor) + 1;
}

/**
 * A token floor as a store read it: a non-negative safe integer with room for the `+ 1` of a first
 * claim. Anything else is a broken store (a column read as text, a lost row), thrown, not planned
 * from: a wrong floor could repeat a purged record's token.
 */
function checkTokenFloor(tokenFloor: number): number {
  if (!Number.isSafeInteger(tokenFloor) || tokenFloor < 0 || tokenFloor >= Number.MAX_SAFE_INTEGER) {
    throw new RangeError('tokenFloor must be a non-negative safe integer below Number.MAX_SAFE_INTEGER');
  }
  return tokenFloor;
}

function inProgress(record: IdempotencyRecord, now: number): ClaimOutcome {
  return {
    kind: 'in_progress',
    lease_expires_at: record.lease_expires_at,
    retry_after_ms: Math.max(1, record.lease_expires_at - now),
  };
}

function planFenced(
  record: IdempotencyRecord | undefined,
  input: FencedInput,
  from: readonly IdempotencyState[],
  next: (current: IdempotencyRecord) => IdempotencyRecord | 'lease_expired',
): IdempotencyPlan<FencedOutcome> {
  if (record === undefined) return refuse('not_found', null);
  if (record.fencing_token !== input.fencing_token) return refuse('fenced', record.state);
  if (!from.includes(record.state)) return refuse('wrong_state', record.state);
  const updated = next(record);
  if (updated === 'lease_expired') return refuse('lease_expired', record.state);
  return {
    outcome: { ok: true, record: updated },
    write: { kind: 'update', expected: { fencing_token: record.fencing_token, state: record.state }, record: updated },
  };
}

function planReconcile(
  record: IdempotencyRecord | undefined,
  input: ReconcileInput,
  now: number,
): IdempotencyPlan<FencedOutcome> {
  if (record === undefined) return refuse('not_found', null);
  if (record.request_sha256 !== input.request_sha256) return refuse('conflict', record.state);
  if (record.state !== 'unknown') return refuse('wrong_state', record.state);
  const updated: IdempotencyRecord = {
    ...record,
    state: 'completed',
    updated_at: now,
    result: { ...input.result, delivery: 'receipt_reconciled', completed_at: now },
  };
  return {
    outcome: { ok: true, record: updated },
    write: { kind: 'update', expected: { fencing_token: record.fencing_token, state: record.state }, record: updated },
  };
}

function refuse(reason: Exclude<FencedOutcome, { ok: true }>['reason'], state: IdempotencyState | null) {
  return { outcome: { ok: false, reason, state } as const, write: null };
}

/**
 * Checks and copies an operation's input (throws StoreInputError on a caller bug). Stores call
 * it before touching storage, so a bad input never causes a partial write.
 */
export function checkIdempotencyOperation<T extends IdempotencyOperation>(operation: T): T {
  const input = operation.input as Partial<ClaimInput & MarkStartedInput & CompleteInput & ReconcileInput & ReleaseInput>;
  if (typeof input !== 'object' || input === null) throw new StoreInputError('input', 'must be an object');
  const key = checkIdentifier('key', input.key);
  switch (operation.type) {
    case 'claim':
      return {
        type: 'claim',
        input: {
          key,
          request_sha256: checkSha256Hex('request_sha256', input.request_sha256),
          intent_sha256:
            input.intent_sha256 === undefined || input.intent_sha256 === null
              ? null
              : checkSha256Hex('intent_sha256', input.intent_sha256),
          owner: checkStorableText('owner', input.owner, MAX_OWNER_LENGTH, 1),
          lease_ms: checkLeaseMs(input.lease_ms),
        },
      } as T;
    case 'markStarted':
      return {
        type: 'markStarted',
        input: {
          key,
          fencing_token: checkPositiveInteger('fencing_token', input.fencing_token),
          lease_ms: checkLeaseMs(input.lease_ms),
        },
      } as T;
    case 'complete':
      return {
        type: 'complete',
        input: {
          key,
          fencing_token: checkPositiveInteger('fencing_token', input.fencing_token),
          result: checkResultInput(input.result),
        },
      } as T;
    case 'release': {
      const declared = input.handler_declared_not_started;
      if (declared !== undefined && typeof declared !== 'boolean') {
        throw new StoreInputError('handler_declared_not_started', 'must be a boolean');
      }
      return {
        type: 'release',
        input: {
          key,
          fencing_token: checkPositiveInteger('fencing_token', input.fencing_token),
          ...(declared === true ? { handler_declared_not_started: true } : {}),
        },
      } as T;
    }
    case 'markUnknown':
      return {
        type: operation.type,
        input: { key, fencing_token: checkPositiveInteger('fencing_token', input.fencing_token) },
      } as T;
    case 'reconcile':
      return {
        type: 'reconcile',
        input: {
          key,
          request_sha256: checkSha256Hex('request_sha256', input.request_sha256),
          result: checkResultInput(input.result),
        },
      } as T;
  }
}

function checkResultInput(value: unknown): ResultInput {
  if (typeof value !== 'object' || value === null) throw new StoreInputError('result', 'must be an object');
  const result = value as Partial<ResultInput>;
  const sealed_json = checkStorableText('result.sealed_json', result.sealed_json, MAX_SEALED_JSON_LENGTH, 2);
  const receipt =
    result.receipt === null ? null : checkStorableText('result.receipt', result.receipt, MAX_RECEIPT_LENGTH, 1);
  return { sealed_json, receipt };
}
