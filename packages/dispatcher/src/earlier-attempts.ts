import { isWellFormedIdentifier } from '@toolseal/adapter-core';
import type { StoredResult } from '@toolseal/audit';
import type { Sha256Hex } from '@toolseal/contracts';

/**
 * How many unresolved records of one request the dispatcher asks `findUnresolved` for, and so the
 * most attempts one call inspects (each at most one store call): a small bound on the work. Its
 * own key is at most one of them. A list that comes back this long may have left some out: a
 * write then does not start (README, "Approvals and earlier attempts").
 */
export const EARLIER_ATTEMPT_LOOKUP_LIMIT = 4;
/** Longest approval key (`Approval.idempotency_key`): the keys an earlier attempt can have. */
const MAX_APPROVAL_KEY_LENGTH = 256;

/** One unresolved attempt of a request under another key, as `findUnresolved` listed it. */
export interface UnresolvedAttempt {
  readonly key: string;
  /** `started` or `unknown`: a write ran or may be running; `claimed`: one may start any moment. */
  readonly state: 'claimed' | 'started' | 'unknown';
  /** The record as listed (not trusted: read by `viewAttempt`). */
  readonly record: object;
}

/**
 * A store lookup that gave no usable answer: it threw or timed out, or answered something that is
 * not a list (`unavailable`), or refused the dispatcher's input (`input_rejected`, StoreInputError:
 * a bug, or a store from before the input).
 */
export type LookupFailure = { kind: 'unavailable' } | { kind: 'input_rejected' };

/** What `findUnresolved` said about other attempts of one request. */
export type EarlierAttempts =
  | {
      kind: 'found';
      /** Every attempt listed under another key, once each: `started` and `unknown` first, then `claimed`. */
      attempts: readonly UnresolvedAttempt[];
      /** The list came back full (`limit` records): more attempts may exist that it left out. */
      more: boolean;
    }
  | LookupFailure;

/** A store without `findUnresolved`: nothing to find (README: that protection is lost). */
export const NO_EARLIER_ATTEMPTS: EarlierAttempts = Object.freeze({ kind: 'found', attempts: Object.freeze([]), more: false });

/**
 * Reads what `findUnresolved` answered for `request_sha256` without trusting it: the attempts
 * under keys other than `ownKey`, as `findEarlierAttempts` describes them.
 */
export function readEarlierAttempts(found: unknown, request_sha256: Sha256Hex, ownKey: string | null): EarlierAttempts {
  if (!Array.isArray(found)) return { kind: 'unavailable' };
  // Read without trusting it: only a record of this very request, in a state that may hide a
  // write, under a key the stores and the seal accept, counts, once; never more than asked for.
  // Oldest first is the store's order, not the order that matters: a short-lived claim (a
  // released attempt claimed again keeps its first `created_at`) may come before an `unknown`
  // record, so every one is looked at, those where a write ran first.
  const listed = (found as unknown[]).slice(0, EARLIER_ATTEMPT_LOOKUP_LIMIT);
  const ran: UnresolvedAttempt[] = [];
  const claimed: UnresolvedAttempt[] = [];
  const seen = new Set<string>();
  for (const candidate of listed) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { key, request_sha256: digest, state } = candidate as Partial<Record<'key' | 'request_sha256' | 'state', unknown>>;
    if (digest !== request_sha256 || (state !== 'claimed' && state !== 'started' && state !== 'unknown')) continue;
    if (!isWellFormedIdentifier(key, MAX_APPROVAL_KEY_LENGTH) || key === ownKey || seen.has(key)) continue;
    seen.add(key);
    (state === 'claimed' ? claimed : ran).push({ key, state, record: candidate });
  }
  // A full list may have left out an attempt (a store's `limit` is a page, not the whole set).
  return { kind: 'found', attempts: [...ran, ...claimed], more: listed.length >= EARLIER_ATTEMPT_LOOKUP_LIMIT };
}

/**
 * What one record of an earlier attempt says, read with `get` or listed by `findUnresolved`, to a
 * call without a live approval. Such a call acts on what it read wherever the store's state
 * machine allows, because a read and a later claim are not one atomic step: a key whose write gave
 * it back in between would be claimed, however briefly, though nothing ran under it (README,
 * "Approvals and earlier attempts").
 */
export type AttemptView =
  /** No record, `released`, or `claimed` (nothing has run under a claim yet). */
  | { readonly kind: 'not_run' }
  /**
   * A write started under the key for another request digest: IDEMPOTENCY_CONFLICT, as a claim
   * answers, or STATUS_CONFLICT under an intent key or when `sameIntent` (the record was claimed
   * for the intent the view was read for: the same intent under other contract revisions).
   */
  | { readonly kind: 'conflict'; readonly sameIntent: boolean }
  /** `completed`: `result` is replayed after every check of `readStoredResult` (a `completed` record never changes). */
  | { readonly kind: 'completed'; readonly result: StoredResult }
  /** `unknown`: its status is queried; `reconcile` is checked by request digest, not fenced. */
  | { readonly kind: 'unknown' }
  /** `started` with a live lease: in progress elsewhere (OUTCOME_UNKNOWN), as a claim answers. */
  | { readonly kind: 'running' }
  /**
   * `started` whose lease ran out (only a claim turns it `unknown`), or a record outside the
   * store's contract: the claim's atomic answer decides.
   */
  | { readonly kind: 'claim_needed' };

export const NOT_RUN: AttemptView = Object.freeze({ kind: 'not_run' });
const CLAIM_NEEDED: AttemptView = Object.freeze({ kind: 'claim_needed' });

/**
 * Reads a record of an earlier attempt of `request_sha256` without trusting it (`undefined`: no
 * record), as the store's `claim` would answer at `now`, but without its write.
 */
export function viewAttempt(record: unknown, request_sha256: Sha256Hex, now: number, intent_sha256: Sha256Hex | null = null): AttemptView {
  if (record === undefined) return NOT_RUN;
  if (typeof record !== 'object' || record === null) return CLAIM_NEEDED;
  const fields = record as Partial<Record<'state' | 'request_sha256' | 'intent_sha256' | 'lease_expires_at' | 'result', unknown>>;
  const { state } = fields;
  // A live claim is another call's, about to write or not: the lookup that follows finds it.
  if (state === 'released' || state === 'claimed') return NOT_RUN;
  if (state !== 'started' && state !== 'unknown' && state !== 'completed') return CLAIM_NEEDED;
  const digest = fields.request_sha256;
  if (digest !== request_sha256) {
    if (typeof digest !== 'string') return CLAIM_NEEDED;
    return Object.freeze({ kind: 'conflict', sameIntent: intent_sha256 !== null && fields.intent_sha256 === intent_sha256 });
  }
  switch (state) {
    case 'unknown':
      return Object.freeze({ kind: 'unknown' });
    case 'started': {
      const leaseExpiresAt = fields.lease_expires_at;
      // As the store decides, `now < lease_expires_at`, but by the dispatcher's clock: with the
      // store on another clock the two can disagree, which only delays a status query or makes a
      // claim the store answers `in_progress` (README, "Approvals and earlier attempts").
      return typeof leaseExpiresAt === 'number' && now < leaseExpiresAt ? Object.freeze({ kind: 'running' }) : CLAIM_NEEDED;
    }
    case 'completed': {
      const result = readStoredResultShape(fields.result);
      return result === null ? CLAIM_NEEDED : Object.freeze({ kind: 'completed', result });
    }
  }
}

/** A stored result's fields that `readStoredResult` reads, copied; `null` when they are not there. */
function readStoredResultShape(value: unknown): StoredResult | null {
  if (typeof value !== 'object' || value === null) return null;
  const { sealed_json, receipt, delivery, completed_at } = value as Partial<Record<keyof StoredResult, unknown>>;
  if (typeof sealed_json !== 'string' || (receipt !== null && typeof receipt !== 'string')) return null;
  if ((delivery !== 'fresh' && delivery !== 'receipt_reconciled') || typeof completed_at !== 'number') return null;
  return { sealed_json, receipt, delivery, completed_at };
}

/**
 * What `findUnresolved({ intent_sha256 })` said: the unresolved attempts of one intent (tenant,
 * subject, tool, arguments; no contract revisions) under keys other than the call's own, with the
 * request digest each was made for. An attempt under the same request digest is the request-based
 * lookup's to answer from; one under another digest was made under other contract revisions.
 */
/** One unresolved attempt of an intent under another key, as `findUnresolved` listed it. */
export interface IntentAttempt {
  readonly key: string;
  readonly request_sha256: Sha256Hex;
  /**
   * `claimed` with a live lease, or `started` with a live lease (by the dispatcher's clock): a
   * write that may start or is running now. Otherwise (`unknown`, or `started` whose lease ran
   * out) one whose outcome nobody knows.
   */
  readonly live: boolean;
}

export type IntentAttempts =
  | {
      kind: 'found';
      attempts: readonly IntentAttempt[];
      /** The list came back full: more attempts may exist that it left out. */
      more: boolean;
    }
  | LookupFailure;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Reads what `findUnresolved` answered for `intent_sha256` at `now` without trusting it. */
export function readIntentAttempts(found: unknown, intent_sha256: Sha256Hex, ownKey: string, now: number): IntentAttempts {
  if (!Array.isArray(found)) return { kind: 'unavailable' };
  const listed = (found as unknown[]).slice(0, EARLIER_ATTEMPT_LOOKUP_LIMIT);
  const attempts: IntentAttempt[] = [];
  const seen = new Set<string>();
  for (const candidate of listed) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const fields = candidate as Partial<Record<'key' | 'request_sha256' | 'intent_sha256' | 'state' | 'lease_expires_at', unknown>>;
    const { key, request_sha256, state } = fields;
    if (fields.intent_sha256 !== intent_sha256 || (state !== 'claimed' && state !== 'started' && state !== 'unknown')) continue;
    if (typeof request_sha256 !== 'string' || !SHA256_HEX.test(request_sha256)) continue;
    if (!isWellFormedIdentifier(key, MAX_APPROVAL_KEY_LENGTH) || key === ownKey || seen.has(key)) continue;
    seen.add(key);
    const leaseExpiresAt = fields.lease_expires_at;
    const live = state !== 'unknown' && typeof leaseExpiresAt === 'number' && now < leaseExpiresAt;
    attempts.push({ key, request_sha256, live });
  }
  return { kind: 'found', attempts, more: listed.length >= EARLIER_ATTEMPT_LOOKUP_LIMIT };
}

/** What `findCompleted({ intent_sha256 })` said about the call's intent. */
export type CompletedAttempts =
  | {
      kind: 'found';
      /** A record listed shows the intent completed under a key other than the call's own. */
      elsewhere: boolean;
      /** The list came back full: more records may exist that it left out. */
      more: boolean;
    }
  | LookupFailure;

/** Reads what `findCompleted` answered for `intent_sha256` without trusting it. */
export function readCompletedAttempts(found: unknown, intent_sha256: Sha256Hex, ownKey: string): CompletedAttempts {
  if (!Array.isArray(found)) return { kind: 'unavailable' };
  const listed = (found as unknown[]).slice(0, EARLIER_ATTEMPT_LOOKUP_LIMIT);
  // The key is not used: any key but the call's own counts, a malformed one too (fail closed).
  const elsewhere = listed.some((candidate) => {
    if (typeof candidate !== 'object' || candidate === null) return false;
    const { key, intent_sha256: digest, state } = candidate as Partial<Record<'key' | 'intent_sha256' | 'state', unknown>>;
    return digest === intent_sha256 && state === 'completed' && key !== ownKey;
  });
  return { kind: 'found', elsewhere, more: listed.length >= EARLIER_ATTEMPT_LOOKUP_LIMIT };
}

/** A completed attempt of one request, as `findCompleted` listed it. */
export interface CompletedAttempt {
  readonly key: string;
  /** The record as listed (not trusted: read by `viewAttempt`). */
  readonly record: object;
}

/** What `findCompleted({ intent_sha256 })` said about one request of that intent. */
export type CompletedAttemptOfRequest =
  | {
      kind: 'found';
      /** The listed completed attempt of the request that completed last, or `null` when none is. */
      attempt: CompletedAttempt | null;
      /** The list came back full: more records may exist that it left out. */
      more: boolean;
    }
  | LookupFailure;

/**
 * Reads what `findCompleted` answered for `intent_sha256` without trusting it: the `completed`
 * record of this very `request_sha256` and intent, under a key the stores and the seal accept,
 * that completed last (`updated_at`: a completed record never changes, so it is the completion
 * time; among equal times, the one listed last). A record of another request digest (the intent
 * under other contract revisions, or another request under a colliding digest) is nobody's attempt
 * of this request. The store lists oldest first by creation, which is not completion order (a key
 * released and claimed again keeps its creation time), so every listed match is compared; and a
 * full list (`more`) may have left a later one out: the caller then answers none.
 */
export function readCompletedAttemptOfRequest(found: unknown, intent_sha256: Sha256Hex, request_sha256: Sha256Hex): CompletedAttemptOfRequest {
  if (!Array.isArray(found)) return { kind: 'unavailable' };
  const listed = (found as unknown[]).slice(0, EARLIER_ATTEMPT_LOOKUP_LIMIT);
  let attempt: CompletedAttempt | null = null;
  let completedAt = Number.NEGATIVE_INFINITY;
  for (const candidate of listed) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const fields = candidate as Partial<Record<'key' | 'request_sha256' | 'intent_sha256' | 'state' | 'updated_at', unknown>>;
    const { key, updated_at } = fields;
    if (fields.state !== 'completed' || fields.request_sha256 !== request_sha256 || fields.intent_sha256 !== intent_sha256) continue;
    if (!isWellFormedIdentifier(key, MAX_APPROVAL_KEY_LENGTH)) continue;
    // A record without a readable completion time is outside the store's contract: not chosen
    // over one with a time, but still an attempt when it is the only one.
    const time = typeof updated_at === 'number' && Number.isFinite(updated_at) ? updated_at : Number.NEGATIVE_INFINITY;
    if (attempt !== null && time < completedAt) continue;
    attempt = { key, record: candidate };
    completedAt = time;
  }
  return { kind: 'found', attempt, more: listed.length >= EARLIER_ATTEMPT_LOOKUP_LIMIT };
}
