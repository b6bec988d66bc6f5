// The conformance suite every audit log and idempotency store runs: in-memory, SQLite, PostgreSQL
// and third-party stores alike. Framework-agnostic: each case throws (node:assert) on failure.
//
//   import { storeConformanceCases } from '@toolseal/audit/conformance';
//   for (const testCase of storeConformanceCases(factory)) it(testCase.name, testCase.run);
import assert from 'node:assert/strict';
import { canonicalize, createDigester, type Digester } from '@toolseal/digests';
import { isWellFormedText } from '@toolseal/guard';
import type { AuditEntry, AuditEntryInput, AuditHead, AuditLog, AuditPageRequest, AuditQuery, AuditTamper, StoredAuditRow } from './audit-log.js';
import { MAX_LEASE_MS } from './check-store-input.js';
import { ManualClock, type Clock } from './clock.js';
import type {
  ClaimInput,
  ClaimOutcome,
  FencedOutcome,
  FindCompletedInput,
  FindUnresolvedInput,
  IdempotencyRecord,
  IdempotencyStore,
  PurgeInput,
  ReconcileInput,
  ReleaseInput,
} from './idempotency-store.js';
import {
  AUDIT_CHAIN_DOMAIN,
  AUDIT_ENTRY_SCHEMA_VERSION,
  AUDIT_GENESIS_DOMAIN,
  GENESIS_HASH,
  MAX_AUDIT_BODY_DEPTH,
  prepareAuditEntry,
  sealAuditEntry,
} from './seal-audit-entry.js';
import { isPurgeable } from './is-purgeable.js';
import { StoreInputError } from './store-input-error.js';

/** What a store factory receives: the suite owns time and the chain key. */
export interface ConformanceContext {
  /** Pass it to the store as its clock; the suite moves it. */
  clock: Clock;
  /** Pass it to the store as its audit digester. */
  digester: Digester;
  /** When present, pass it to the store as its log identity (`logId`); absent, open it without one. */
  logId?: string;
}

/** A fresh, empty pair of stores for one case, plus raw access for tamper tests. */
export interface ConformanceStores {
  auditLog: AuditLog;
  idempotencyStore: IdempotencyStore;
  tamper: AuditTamper;
  /** Releases connections and files; called once the case ends, pass or fail. */
  close(): Promise<void>;
}

export type StoreFactory = (context: ConformanceContext) => Promise<ConformanceStores>;

export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
}

export interface ConformanceOptions {
  /** How many operations the concurrency cases issue at once (default 64). */
  concurrency?: number;
}

/** 2026-07-19T00:00:00.000Z */
const T0 = Date.UTC(2026, 6, 19);
const REQUEST_A = 'a'.repeat(64);
const REQUEST_B = 'b'.repeat(64);
const REQUEST_C = 'c'.repeat(64);
/** Intent digests (revision-free): one intent may have several request digests (revisions). */
const INTENT_X = '1'.repeat(64);
const INTENT_Y = '2'.repeat(64);
const OWNER_1 = 'host-1';
const OWNER_2 = 'host-2';
const LEASE = 30_000;
/** The fencing token of a key's first claim at T0: the clock reading plus one (the token floor is 0 until a purge). */
const FIRST = T0 + 1;
const SEALED_1 = canonicalize({
  model_result: { data: { note: 'caf\u00e9 \u2615 \u{1F600} "quoted" back\\slash \u0000 nul', amount: 6000 } },
  protected_audit: { binding: { result_sha256: 'c'.repeat(64) } },
});
const SEALED_2 = canonicalize({ model_result: { data: { reconciled: true } } });

interface CaseContext {
  stores: ConformanceStores;
  store: IdempotencyStore;
  log: AuditLog;
  clock: ManualClock;
  digester: Digester;
}

/**
 * The conformance cases. Each case builds its own stores with `factory` and closes them.
 * Expected outcomes come from the delivery and recovery rules (spec: OUTCOME_UNKNOWN recovers by
 * `query_status`, never by a second write; `local_replay` and `receipt_reconciled` deliveries).
 */
export function storeConformanceCases(factory: StoreFactory, options: ConformanceOptions = {}): ConformanceCase[] {
  const concurrency = options.concurrency ?? 64;

  function define(name: string, body: (context: CaseContext) => Promise<void>, key?: Uint8Array): ConformanceCase {
    return {
      name,
      run: async () => {
        const clock = new ManualClock(T0);
        const digester = key === undefined ? createDigester() : createDigester({ key });
        const stores = await factory({ clock, digester });
        try {
          await body({ stores, store: stores.idempotencyStore, log: stores.auditLog, clock, digester });
        } finally {
          await stores.close();
        }
      },
    };
  }

  const chainKey = new TextEncoder().encode('conformance chain key, 32 bytes!');

  /** The record a first claim of `key` by OWNER_1 at T0 stores (`claimInput`'s request digest). */
  const firstClaimRecord = (key: string, intent: string | null) => ({
    key,
    request_sha256: REQUEST_A,
    intent_sha256: intent,
    state: 'claimed',
    owner: OWNER_1,
    fencing_token: FIRST,
    lease_expires_at: T0 + LEASE,
    created_at: T0,
    updated_at: T0,
    result: null,
  });

  return [
    // ---------------------------------------------------------------- idempotency: claims
    define('claim: a new key is claimed with a fencing token and a lease from the injected clock (token: its reading + 1)', async ({ store }) => {
      const outcome = await store.claim(claimInput('key-new'));
      assert.deepEqual(outcome, { kind: 'claimed', fencing_token: FIRST, lease_expires_at: T0 + LEASE, took_over: false });
      assert.deepEqual(await store.get('key-new'), firstClaimRecord('key-new', null));
      assert.equal(await store.get('key-absent'), undefined);
    }),

    define('claim: a live lease answers in_progress with its expiry, claimed or started', async ({ store, clock }) => {
      await store.claim(claimInput('key-live'));
      clock.advance(10_000);
      assert.deepEqual(await store.claim(claimInput('key-live', { owner: OWNER_2 })), {
        kind: 'in_progress',
        lease_expires_at: T0 + LEASE,
        retry_after_ms: 20_000,
      });
      const marked = await store.markStarted({ key: 'key-live', fencing_token: FIRST, lease_ms: 5_000 });
      const started = await store.get('key-live');
      assert.deepEqual(marked, { ok: true, record: started });
      assert.equal(started?.state, 'started');
      assert.equal(started?.lease_expires_at, T0 + 15_000, 'markStarted renews the lease to now + lease_ms');
      clock.advance(4_999);
      assert.deepEqual(await store.claim(claimInput('key-live', { owner: OWNER_2 })), {
        kind: 'in_progress',
        lease_expires_at: T0 + 15_000,
        retry_after_ms: 1,
      });
    }),

    define('claim: the same key with a different request digest conflicts while something may have run or is running', async ({ store, clock }) => {
      const { released, ...busy } = await recordsInEveryState(store, clock);
      for (const [state, key] of Object.entries(busy)) {
        assert.deepEqual(await store.claim(claimInput(key, { request: REQUEST_B })), { kind: 'conflict' }, state);
        assert.equal((await store.get(key))?.request_sha256, REQUEST_A, `${state}: a conflict changes nothing`);
      }
      // Nothing ran under a released key: the new request takes it over, with the next token.
      const taken = await store.claim(claimInput(released, { request: REQUEST_B, owner: OWNER_2 }));
      assert.equal(taken.kind === 'claimed' && taken.fencing_token, FIRST + 1);
      const record = await store.get(released);
      assert.equal(record?.request_sha256, REQUEST_B);
      assert.equal(record?.state, 'claimed');
      assert.equal(record?.owner, OWNER_2);
      // The request that released it now conflicts with the one holding it.
      assert.deepEqual(await store.claim(claimInput(released)), { kind: 'conflict' });
    }),

    define('claim: a claim whose lease ran out before it started is taken over by another request digest', async ({ store, clock }) => {
      await store.claim(claimInput('key-expired-other'));
      clock.advance(LEASE);
      const taken = await store.claim(claimInput('key-expired-other', { request: REQUEST_B, owner: OWNER_2 }));
      assert.deepEqual(taken, { kind: 'claimed', fencing_token: FIRST + 1, lease_expires_at: T0 + 2 * LEASE, took_over: true });
      assert.equal((await store.get('key-expired-other'))?.request_sha256, REQUEST_B);
      // The first owner is fenced off: it may not start.
      const stale = await store.markStarted({ key: 'key-expired-other', fencing_token: FIRST, lease_ms: LEASE });
      assert.equal(stale.ok, false);
    }),

    define('claim: the intent digest is stored with the request digest; a claim without one (absent or null) stores null', async ({ store, clock }) => {
      const outcome = await store.claim(claimInput('key-intent', { intent: INTENT_X }));
      assert.deepEqual(outcome, { kind: 'claimed', fencing_token: FIRST, lease_expires_at: T0 + LEASE, took_over: false });
      assert.deepEqual(await store.get('key-intent'), firstClaimRecord('key-intent', INTENT_X));
      assert.equal((await store.claim(claimInput('key-no-intent'))).kind, 'claimed');
      assert.equal((await store.get('key-no-intent'))?.intent_sha256, null);
      assert.equal((await store.claim(claimInput('key-null-intent', { intent: null }))).kind, 'claimed');
      assert.equal((await store.get('key-null-intent'))?.intent_sha256, null);
      // No other transition changes it; outcomes carry it in their records.
      const started = await store.markStarted({ key: 'key-intent', fencing_token: FIRST, lease_ms: LEASE });
      assert.equal(started.ok && started.record.intent_sha256, INTENT_X);
      clock.advance(5);
      const completed = await store.complete({ key: 'key-intent', fencing_token: FIRST, result: { sealed_json: SEALED_1, receipt: null } });
      assert.equal(completed.ok && completed.record.intent_sha256, INTENT_X);
      assert.deepEqual(completed.ok && completed.record, await store.get('key-intent'));
      // A claim of the completed key with another intent replays; the record keeps its intent.
      assert.equal((await store.claim(claimInput('key-intent', { intent: INTENT_Y }))).kind, 'completed');
      assert.equal((await store.get('key-intent'))?.intent_sha256, INTENT_X);
    }),

    define('claim: a claim that takes a free record over writes its own intent digest (or null), replacing the record\'s', async ({ store, clock }) => {
      await store.claim(claimInput('key-retake', { intent: INTENT_X }));
      // A live claim of the same request with another intent is in progress: nothing written.
      assert.equal((await store.claim(claimInput('key-retake', { intent: INTENT_Y, owner: OWNER_2 }))).kind, 'in_progress');
      assert.equal((await store.get('key-retake'))?.intent_sha256, INTENT_X);
      clock.advance(LEASE);
      const taken = await store.claim(claimInput('key-retake', { request: REQUEST_B, intent: INTENT_Y, owner: OWNER_2 }));
      assert.deepEqual(taken, { kind: 'claimed', fencing_token: FIRST + 1, lease_expires_at: T0 + 2 * LEASE, took_over: true });
      const record = await store.get('key-retake');
      assert.equal(record?.request_sha256, REQUEST_B);
      assert.equal(record?.intent_sha256, INTENT_Y);
      // Released, then claimed again by a claim without an intent: null.
      assert.equal((await store.release({ key: 'key-retake', fencing_token: FIRST + 1 })).ok, true);
      assert.equal((await store.claim(claimInput('key-retake', { request: REQUEST_B }))).kind, 'claimed');
      assert.equal((await store.get('key-retake'))?.intent_sha256, null);
      // A started record whose lease ran out turns unknown on the next claim, keeping its intent.
      await store.claim(claimInput('key-lapsed', { intent: INTENT_X }));
      assert.equal((await store.markStarted({ key: 'key-lapsed', fencing_token: T0 + LEASE + 1, lease_ms: 10 })).ok, true);
      clock.advance(10);
      assert.equal((await store.claim(claimInput('key-lapsed', { intent: INTENT_Y }))).kind, 'outcome_unknown');
      const lapsed = await store.get('key-lapsed');
      assert.equal(lapsed?.state, 'unknown');
      assert.equal(lapsed?.intent_sha256, INTENT_X);
    }),

    // ---------------------------------------------------------------- idempotency: fenced writes
    define('markStarted: refuses a stale token, the wrong state, an unknown key and an expired lease', async ({ store, clock }) => {
      await store.claim(claimInput('key-start'));
      assert.deepEqual(await store.markStarted({ key: 'key-start', fencing_token: FIRST + 1, lease_ms: LEASE }), {
        ok: false,
        reason: 'fenced',
        state: 'claimed',
      });
      assert.deepEqual(await store.markStarted({ key: 'key-none', fencing_token: FIRST, lease_ms: LEASE }), {
        ok: false,
        reason: 'not_found',
        state: null,
      });
      assert.equal((await store.markStarted({ key: 'key-start', fencing_token: FIRST, lease_ms: LEASE })).ok, true);
      assert.deepEqual(await store.markStarted({ key: 'key-start', fencing_token: FIRST, lease_ms: LEASE }), {
        ok: false,
        reason: 'wrong_state',
        state: 'started',
      });

      await store.claim(claimInput('key-late'));
      clock.advance(LEASE);
      assert.deepEqual(await store.markStarted({ key: 'key-late', fencing_token: FIRST, lease_ms: LEASE }), {
        ok: false,
        reason: 'lease_expired',
        state: 'claimed',
      });
      assert.equal((await store.get('key-late'))?.state, 'claimed', 'a refused write changes nothing');
    }),

    define('complete: stores the sealed result byte for byte; claims replay it as local_replay', async ({ store, clock }) => {
      await store.claim(claimInput('key-done'));
      await store.markStarted({ key: 'key-done', fencing_token: FIRST, lease_ms: LEASE });
      clock.advance(1_234);
      const completed = await store.complete({
        key: 'key-done',
        fencing_token: FIRST,
        result: { sealed_json: SEALED_1, receipt: 'receipt-\u00e9-1' },
      });
      const expectedResult = { sealed_json: SEALED_1, receipt: 'receipt-\u00e9-1', delivery: 'fresh', completed_at: T0 + 1_234 };
      assert.equal(completed.ok, true);
      assert.deepEqual(completed.ok && completed.record.result, expectedResult);
      clock.advance(1_000_000);
      const replay = await store.claim(claimInput('key-done', { owner: OWNER_2 }));
      assert.deepEqual(replay, { kind: 'completed', result: expectedResult, delivery: 'local_replay' });
      assert.equal(replay.kind === 'completed' && replay.result.sealed_json === SEALED_1, true);
      const record = await store.get('key-done');
      assert.equal(record?.state, 'completed');
      assert.equal(record?.fencing_token, FIRST);
      assert.deepEqual(record?.result, expectedResult);
    }),

    define('complete: refused for a stale token, before start, twice, and for an unknown key', async ({ store }) => {
      const result = { sealed_json: SEALED_1, receipt: null };
      await store.claim(claimInput('key-c'));
      assert.deepEqual(await store.complete({ key: 'key-c', fencing_token: FIRST, result }), {
        ok: false,
        reason: 'wrong_state',
        state: 'claimed',
      });
      await store.markStarted({ key: 'key-c', fencing_token: FIRST, lease_ms: LEASE });
      assert.deepEqual(await store.complete({ key: 'key-c', fencing_token: FIRST + 6, result }), {
        ok: false,
        reason: 'fenced',
        state: 'started',
      });
      assert.equal((await store.complete({ key: 'key-c', fencing_token: FIRST, result })).ok, true);
      assert.deepEqual(await store.complete({ key: 'key-c', fencing_token: FIRST, result: { sealed_json: SEALED_2, receipt: null } }), {
        ok: false,
        reason: 'wrong_state',
        state: 'completed',
      });
      assert.equal((await store.get('key-c'))?.result?.sealed_json, SEALED_1, 'the first result stays');
      assert.deepEqual(await store.complete({ key: 'key-none', fencing_token: FIRST, result }), {
        ok: false,
        reason: 'not_found',
        state: null,
      });
    }),

    // ---------------------------------------------------------------- idempotency: leases
    define('lease takeover: an expired claim is taken over with a new token that fences the old owner', async ({ store, clock }) => {
      await store.claim(claimInput('key-take'));
      clock.set(T0 + LEASE - 1);
      assert.equal((await store.claim(claimInput('key-take', { owner: OWNER_2 }))).kind, 'in_progress', 'one ms before expiry');
      clock.set(T0 + LEASE);
      assert.deepEqual(await store.claim(claimInput('key-take', { owner: OWNER_2, lease: 5_000 })), {
        kind: 'claimed',
        fencing_token: FIRST + 1,
        lease_expires_at: T0 + LEASE + 5_000,
        took_over: true,
      });
      const record = await store.get('key-take');
      assert.equal(record?.owner, OWNER_2);
      assert.equal(record?.fencing_token, FIRST + 1);
      assert.equal(record?.created_at, T0);
      // The old owner wakes up: every write with its token is refused.
      assert.deepEqual(await store.markStarted({ key: 'key-take', fencing_token: FIRST, lease_ms: LEASE }), {
        ok: false,
        reason: 'fenced',
        state: 'claimed',
      });
      assert.deepEqual(await store.release({ key: 'key-take', fencing_token: FIRST }), {
        ok: false,
        reason: 'fenced',
        state: 'claimed',
      });
      assert.equal((await store.markStarted({ key: 'key-take', fencing_token: FIRST + 1, lease_ms: LEASE })).ok, true);
      assert.deepEqual(await store.complete({ key: 'key-take', fencing_token: FIRST, result: { sealed_json: SEALED_1, receipt: null } }), {
        ok: false,
        reason: 'fenced',
        state: 'started',
      });
      assert.deepEqual(await store.markUnknown({ key: 'key-take', fencing_token: FIRST }), {
        ok: false,
        reason: 'fenced',
        state: 'started',
      });
    }),

    define('outcome unknown: a started record whose lease ran out is never run again', async ({ store, clock }) => {
      await store.claim(claimInput('key-lost'));
      await store.markStarted({ key: 'key-lost', fencing_token: FIRST, lease_ms: 10_000 });
      clock.advance(10_000);
      assert.deepEqual(await store.claim(claimInput('key-lost', { owner: OWNER_2 })), {
        kind: 'outcome_unknown',
        recovery: 'query_status',
      });
      assert.equal((await store.get('key-lost'))?.state, 'unknown');
      clock.advance(86_400_000);
      assert.deepEqual(await store.claim(claimInput('key-lost', { owner: OWNER_2 })), {
        kind: 'outcome_unknown',
        recovery: 'query_status',
      });
      // The first owner reports back too late: its result cannot overwrite the unknown record.
      assert.deepEqual(await store.complete({ key: 'key-lost', fencing_token: FIRST, result: { sealed_json: SEALED_1, receipt: 'r' } }), {
        ok: false,
        reason: 'wrong_state',
        state: 'unknown',
      });
      assert.equal((await store.purgeExpired({ older_than_ms: 0 })), 0, 'unknown records are never purged');
    }),

    define('markUnknown: started → unknown; claims answer outcome_unknown at once', async ({ store }) => {
      await store.claim(claimInput('key-u'));
      assert.deepEqual(await store.markUnknown({ key: 'key-u', fencing_token: FIRST }), {
        ok: false,
        reason: 'wrong_state',
        state: 'claimed',
      });
      await store.markStarted({ key: 'key-u', fencing_token: FIRST, lease_ms: LEASE });
      // A token never issued for the record, higher than its own, is fenced like a stale one.
      assert.deepEqual(await store.markUnknown({ key: 'key-u', fencing_token: FIRST + 6 }), {
        ok: false,
        reason: 'fenced',
        state: 'started',
      });
      const marked = await store.markUnknown({ key: 'key-u', fencing_token: FIRST });
      assert.equal(marked.ok && marked.record.state, 'unknown');
      assert.deepEqual(await store.claim(claimInput('key-u')), { kind: 'outcome_unknown', recovery: 'query_status' });
      assert.deepEqual(await store.markUnknown({ key: 'key-u', fencing_token: FIRST }), {
        ok: false,
        reason: 'wrong_state',
        state: 'unknown',
      });
    }),

    define('reconcile: only unknown → completed, as receipt_reconciled; the digest must match', async ({ store, clock }) => {
      const result = { sealed_json: SEALED_2, receipt: 'receipt-found' };
      assert.deepEqual(await store.reconcile({ key: 'key-r', request_sha256: REQUEST_A, result }), {
        ok: false,
        reason: 'not_found',
        state: null,
      });
      await store.claim(claimInput('key-r'));
      assert.deepEqual(await store.reconcile({ key: 'key-r', request_sha256: REQUEST_A, result }), {
        ok: false,
        reason: 'wrong_state',
        state: 'claimed',
      });
      await store.markStarted({ key: 'key-r', fencing_token: FIRST, lease_ms: LEASE });
      assert.deepEqual(await store.reconcile({ key: 'key-r', request_sha256: REQUEST_A, result }), {
        ok: false,
        reason: 'wrong_state',
        state: 'started',
      });
      await store.markUnknown({ key: 'key-r', fencing_token: FIRST });
      assert.deepEqual(await store.reconcile({ key: 'key-r', request_sha256: REQUEST_B, result }), {
        ok: false,
        reason: 'conflict',
        state: 'unknown',
      });
      clock.advance(500);
      const reconciled = await store.reconcile({ key: 'key-r', request_sha256: REQUEST_A, result });
      const expectedResult = { ...result, delivery: 'receipt_reconciled', completed_at: T0 + 500 };
      assert.deepEqual(reconciled.ok && reconciled.record.result, expectedResult);
      assert.deepEqual(await store.claim(claimInput('key-r', { owner: OWNER_2 })), {
        kind: 'completed',
        result: expectedResult,
        delivery: 'local_replay',
      });
      assert.deepEqual(await store.reconcile({ key: 'key-r', request_sha256: REQUEST_A, result }), {
        ok: false,
        reason: 'wrong_state',
        state: 'completed',
      });
    }),

    define('release: claimed → released; the next claim gets a new token and the old one is fenced', async ({ store, clock }) => {
      await store.claim(claimInput('key-rel'));
      const released = await store.release({ key: 'key-rel', fencing_token: FIRST });
      assert.equal(released.ok && released.record.state, 'released');
      assert.deepEqual(await store.release({ key: 'key-rel', fencing_token: FIRST }), {
        ok: false,
        reason: 'wrong_state',
        state: 'released',
      });
      clock.advance(10);
      assert.deepEqual(await store.claim(claimInput('key-rel', { owner: OWNER_2 })), {
        kind: 'claimed',
        fencing_token: FIRST + 1,
        lease_expires_at: T0 + 10 + LEASE,
        took_over: false,
      });
      assert.deepEqual(await store.markStarted({ key: 'key-rel', fencing_token: FIRST, lease_ms: LEASE }), {
        ok: false,
        reason: 'fenced',
        state: 'claimed',
      });
      await store.markStarted({ key: 'key-rel', fencing_token: FIRST + 1, lease_ms: LEASE });
      assert.deepEqual(await store.release({ key: 'key-rel', fencing_token: FIRST + 1 }), {
        ok: false,
        reason: 'wrong_state',
        state: 'started',
      });
    }),

    define('release after a declared not-started refusal: started → released, fenced, claimable again', async ({ store, clock }) => {
      const declared = { handler_declared_not_started: true } as const;
      await store.claim(claimInput('key-ns'));
      await store.markStarted({ key: 'key-ns', fencing_token: FIRST, lease_ms: LEASE });
      assert.deepEqual(await store.release({ key: 'key-ns', fencing_token: FIRST + 1, ...declared }), {
        ok: false,
        reason: 'fenced',
        state: 'started',
      });
      assert.deepEqual(await store.release({ key: 'missing', fencing_token: FIRST, ...declared }), {
        ok: false,
        reason: 'not_found',
        state: null,
      });
      const released = await store.release({ key: 'key-ns', fencing_token: FIRST, ...declared });
      assert.equal(released.ok && released.record.state, 'released');
      assert.equal(released.ok && released.record.fencing_token, FIRST);
      assert.deepEqual(await store.release({ key: 'key-ns', fencing_token: FIRST, ...declared }), {
        ok: false,
        reason: 'wrong_state',
        state: 'released',
      });
      clock.advance(10);
      assert.deepEqual(await store.claim(claimInput('key-ns', { owner: OWNER_2 })), {
        kind: 'claimed',
        fencing_token: FIRST + 1,
        lease_expires_at: T0 + 10 + LEASE,
        took_over: false,
      });
      // The first owner's token is fenced for every write, the declared release included.
      assert.deepEqual(await store.release({ key: 'key-ns', fencing_token: FIRST, ...declared }), {
        ok: false,
        reason: 'fenced',
        state: 'claimed',
      });
      assert.deepEqual(await store.markStarted({ key: 'key-ns', fencing_token: FIRST, lease_ms: LEASE }), {
        ok: false,
        reason: 'fenced',
        state: 'claimed',
      });
      // A declared release from `claimed` is an ordinary release.
      const again = await store.release({ key: 'key-ns', fencing_token: FIRST + 1, ...declared });
      assert.equal(again.ok && again.record.state, 'released');
      assert.equal((await store.claim(claimInput('key-ns'))).kind, 'claimed');
      assert.equal((await store.get('key-ns'))?.fencing_token, FIRST + 2);
    }),

    define('release after a declared not-started refusal: never from unknown or completed', async ({ store, clock }) => {
      const declared = { handler_declared_not_started: true } as const;
      await store.claim(claimInput('key-nu'));
      await store.markStarted({ key: 'key-nu', fencing_token: FIRST, lease_ms: LEASE });
      await store.markUnknown({ key: 'key-nu', fencing_token: FIRST });
      assert.deepEqual(await store.release({ key: 'key-nu', fencing_token: FIRST, ...declared }), {
        ok: false,
        reason: 'wrong_state',
        state: 'unknown',
      });
      assert.deepEqual(await store.claim(claimInput('key-nu')), { kind: 'outcome_unknown', recovery: 'query_status' });

      await store.claim(claimInput('key-nc'));
      await store.markStarted({ key: 'key-nc', fencing_token: FIRST, lease_ms: LEASE });
      await store.complete({ key: 'key-nc', fencing_token: FIRST, result: { sealed_json: SEALED_1, receipt: null } });
      assert.deepEqual(await store.release({ key: 'key-nc', fencing_token: FIRST, ...declared }), {
        ok: false,
        reason: 'wrong_state',
        state: 'completed',
      });
      assert.equal((await store.claim(claimInput('key-nc'))).kind, 'completed');

      // A started record whose lease ran out turns unknown on the next claim; after that the
      // late declaration is refused, and the key stays outcome unknown.
      await store.claim(claimInput('key-nl'));
      await store.markStarted({ key: 'key-nl', fencing_token: FIRST, lease_ms: 10_000 });
      clock.advance(10_000);
      assert.equal((await store.claim(claimInput('key-nl', { owner: OWNER_2 }))).kind, 'outcome_unknown');
      assert.deepEqual(await store.release({ key: 'key-nl', fencing_token: FIRST, ...declared }), {
        ok: false,
        reason: 'wrong_state',
        state: 'unknown',
      });
    }),

    define('retention: purgeExpired deletes only finished records past retention', async ({ store, clock }) => {
      const keys = await recordsInEveryState(store, clock);
      // recordsInEveryState leaves the clock at T0 + 2 * LEASE; the claimed record's lease is live.
      assert.equal(await store.purgeExpired({ older_than_ms: 3_600_000 }), 0);
      clock.advance(3_600_000);
      assert.equal(await store.purgeExpired({ older_than_ms: 3_600_000 }), 2, 'completed and released');
      assert.equal(await store.get(keys.completed), undefined);
      assert.equal(await store.get(keys.released), undefined);
      assert.equal((await store.get(keys.unknown))?.state, 'unknown');
      assert.equal((await store.get(keys.started))?.state, 'started');
      assert.equal((await store.get(keys.claimed))?.state, 'claimed');
      clock.advance(LEASE);
      assert.equal(await store.purgeExpired({ older_than_ms: 3_600_000 }), 1, 'the abandoned claim');
      assert.equal(await store.get(keys.claimed), undefined);
      assert.equal((await store.get(keys.started))?.state, 'started', 'started records are never purged');
      // A purged key is free again: retention must outlast every client's retry horizon.
      assert.equal((await store.claim(claimInput(keys.completed, { request: REQUEST_B }))).kind, 'claimed');
    }),

    define('retention: a record is kept for the retention after it finished, not after it was created', async ({ store, clock }) => {
      // A write that finished long after its claim (a handler that ran for hours, a retry after a
      // release) must be replayed for the whole retention: counting from the claim frees its key
      // early, and the client's retry writes again (store-author review).
      const hour = 3_600_000;
      assert.equal((await store.claim(claimInput('key-late-completed', { lease: 23 * hour }))).kind, 'claimed');
      assert.equal((await store.markStarted({ key: 'key-late-completed', fencing_token: FIRST, lease_ms: 23 * hour })).ok, true);
      assert.equal((await store.claim(claimInput('key-late-released', { lease: 23 * hour }))).kind, 'claimed');
      clock.advance(20 * hour);
      assert.equal((await store.complete({ key: 'key-late-completed', fencing_token: FIRST, result: { sealed_json: SEALED_1, receipt: 'r-1' } })).ok, true);
      assert.equal((await store.release({ key: 'key-late-released', fencing_token: FIRST })).ok, true);
      clock.advance(1_000);
      assert.equal(await store.purgeExpired({ older_than_ms: 10 * hour }), 0, 'finished a second ago: kept');
      const replay = await store.claim(claimInput('key-late-completed'));
      assert.equal(replay.kind === 'completed' && replay.delivery, 'local_replay');
      clock.advance(10 * hour);
      assert.equal(await store.purgeExpired({ older_than_ms: 10 * hour }), 2, 'finished ten hours ago: purged');
    }),

    define('retention: a purged key starts above every token it had, so a stale owner stays fenced off', async ({ store, clock }) => {
      // An abandoned claim whose owner only stalled: purged once its lease ran out.
      const stalled = await store.claim(claimInput('key-purged-claim'));
      assert.equal(stalled.kind, 'claimed');
      const stalledToken = stalled.kind === 'claimed' ? stalled.fencing_token : 0;
      // A completed record whose first owner was taken over and is still on its way too.
      await store.claim(claimInput('key-purged-done'));
      clock.advance(LEASE);
      const winner = await store.claim(claimInput('key-purged-done', { owner: OWNER_2 }));
      assert.equal(winner.kind === 'claimed' && winner.took_over, true);
      const winnerToken = winner.kind === 'claimed' ? winner.fencing_token : 0;
      assert.equal((await store.markStarted({ key: 'key-purged-done', fencing_token: winnerToken, lease_ms: LEASE })).ok, true);
      assert.equal((await store.complete({ key: 'key-purged-done', fencing_token: winnerToken, result: { sealed_json: SEALED_1, receipt: null } })).ok, true);
      assert.equal(await store.purgeExpired({ older_than_ms: 0 }), 2);

      // The next record of each key: its token is new, and every late write of an old owner fails.
      for (const key of ['key-purged-claim', 'key-purged-done']) {
        const next = await store.claim(claimInput(key, { owner: OWNER_2 }));
        assert.deepEqual(next, { kind: 'claimed', fencing_token: T0 + LEASE + 1, lease_expires_at: T0 + 2 * LEASE, took_over: false }, key);
      }
      for (const token of [stalledToken, FIRST]) {
        assert.deepEqual(await store.markStarted({ key: 'key-purged-claim', fencing_token: token, lease_ms: LEASE }), { ok: false, reason: 'fenced', state: 'claimed' });
        assert.deepEqual(await store.release({ key: 'key-purged-claim', fencing_token: token, handler_declared_not_started: true }), { ok: false, reason: 'fenced', state: 'claimed' });
      }
      for (const token of [FIRST, winnerToken]) {
        assert.deepEqual(await store.markStarted({ key: 'key-purged-done', fencing_token: token, lease_ms: LEASE }), { ok: false, reason: 'fenced', state: 'claimed' });
      }
      assert.equal((await store.get('key-purged-claim'))?.owner, OWNER_2);
    }),

    define('retention: what purgeExpired deletes is what isPurgeable says, tokens ahead of the clock included, and the next record starts above them', async ({ store, clock }) => {
      const keys = ['released-thrice', 'claimed-twice', 'completed-once'];
      // Within one millisecond: claim and release three times (tokens T0 + 1, + 2, + 3) ...
      for (let round = 0; round < 3; round += 1) {
        const claim = await store.claim(claimInput('released-thrice', { lease: 1 }));
        assert.equal(claim.kind === 'claimed' && claim.fencing_token, FIRST + round);
        assert.equal((await store.release({ key: 'released-thrice', fencing_token: FIRST + round })).ok, true);
      }
      // ... and claim, release, claim again with a 1 ms lease (token T0 + 2, lease ends T0 + 1).
      assert.equal((await store.claim(claimInput('claimed-twice', { lease: 1 }))).kind, 'claimed');
      assert.equal((await store.release({ key: 'claimed-twice', fencing_token: FIRST })).ok, true);
      const again = await store.claim(claimInput('claimed-twice', { lease: 1 }));
      assert.equal(again.kind === 'claimed' && again.fencing_token, FIRST + 1);
      await recordInState(store, 'completed-once', 'completed');

      // Finished at T0 (the lapsed claim's lease at T0 + 1): tokens play no part in retention, the
      // token floor does their job.
      const expectedPurged = [['released-thrice', 'completed-once'], ['claimed-twice']];
      for (const [step, expected] of expectedPurged.entries()) {
        if (step > 0) clock.advance(1);
        // Each step: what isPurgeable says of the stored records is what the store deletes.
        const records = (await Promise.all(keys.map((key) => store.get(key)))).filter((record) => record !== undefined);
        const purgeable = records.filter((record) => isPurgeable(record, clock.now())).map((record) => record.key);
        assert.deepEqual(purgeable, expected, `isPurgeable at T0 + ${step}`);
        assert.equal(await store.purgeExpired({ older_than_ms: 0 }), expected.length, `purged at T0 + ${step}`);
        for (const key of expected) assert.equal(await store.get(key), undefined, key);
      }
      // The purged key's next record starts above every token it handed out (the floor: T0 + 3).
      const next = await store.claim(claimInput('released-thrice', { owner: OWNER_2, lease: 1 }));
      assert.equal(next.kind === 'claimed' && next.fencing_token, T0 + 4);
    }),

    define('retention: after a purge, a clock set back further than older_than_ms never gives the key a purged token again: stale writes stay fenced, the handler runs once', async ({ store, clock }) => {
      const key = 'key-step-back';
      const fenced = (state: string) => ({ ok: false, reason: 'fenced', state });
      // Host 1 claims; its markStarted lands after its lease ran out, so its dispatcher cannot tell
      // whether it was applied and (README, step 3) will release with handler_declared_not_started.
      assert.deepEqual(await store.claim(claimInput(key, { lease: 1_000 })), { kind: 'claimed', fencing_token: FIRST, lease_expires_at: T0 + 1_000, took_over: false });
      clock.advance(1_000);
      assert.deepEqual(await store.markStarted({ key, fencing_token: FIRST, lease_ms: LEASE }), { ok: false, reason: 'lease_expired', state: 'claimed' });
      // Host 2 takes the lapsed claim over and releases it: the record handed out FIRST and FIRST + 1.
      assert.deepEqual(await store.claim(claimInput(key, { owner: OWNER_2, lease: 1_000 })), { kind: 'claimed', fencing_token: FIRST + 1, lease_expires_at: T0 + 2_000, took_over: true });
      assert.equal((await store.release({ key, fencing_token: FIRST + 1 })).ok, true);
      clock.advance(60_000);
      assert.equal(await store.purgeExpired({ older_than_ms: 60_000 }), 1);
      assert.equal(await store.get(key), undefined);

      // The clock steps back by more than older_than_ms (an NTP step, a resumed VM): to T0, where a
      // first token from the clock alone would be FIRST again. The store's floor (FIRST + 1) wins.
      clock.set(T0);
      assert.deepEqual(await store.claim(claimInput(key, { owner: 'host-3' })), { kind: 'claimed', fencing_token: FIRST + 2, lease_expires_at: T0 + LEASE, took_over: false });
      assert.equal((await store.markStarted({ key, fencing_token: FIRST + 2, lease_ms: LEASE })).ok, true, 'host 3 runs the handler');
      // Every late write with a token the purged record handed out is fenced and changes nothing:
      // host 1's release cannot free host 3's running write for another claim to run it again.
      for (const token of [FIRST, FIRST + 1]) {
        assert.deepEqual(await store.release({ key, fencing_token: token, handler_declared_not_started: true }), fenced('started'), `release ${token}`);
        assert.deepEqual(await store.release({ key, fencing_token: token }), fenced('started'));
        assert.deepEqual(await store.markStarted({ key, fencing_token: token, lease_ms: LEASE }), fenced('started'));
        assert.deepEqual(await store.complete({ key, fencing_token: token, result: { sealed_json: SEALED_2, receipt: null } }), fenced('started'));
        assert.deepEqual(await store.markUnknown({ key, fencing_token: token }), fenced('started'));
      }
      assert.deepEqual(await store.get(key), {
        key,
        request_sha256: REQUEST_A,
        intent_sha256: null,
        state: 'started',
        owner: 'host-3',
        fencing_token: FIRST + 2,
        lease_expires_at: T0 + LEASE,
        created_at: T0,
        updated_at: T0,
        result: null,
      });
      // Another host retrying the key never gets to run it: in progress, then host 3's result.
      assert.equal((await store.claim(claimInput(key, { owner: 'host-4' }))).kind, 'in_progress');
      assert.equal((await store.complete({ key, fencing_token: FIRST + 2, result: { sealed_json: SEALED_1, receipt: 'R-1' } })).ok, true);
      const replay = await store.claim(claimInput(key, { owner: 'host-4' }));
      assert.equal(replay.kind === 'completed' && replay.delivery, 'local_replay');
    }),

    define('retention: across purges and clock steps back and forth, a key never gets a token twice and every earlier token stays fenced', async ({ store, clock }) => {
      const key = 'key-steps';
      /** Every token the key's records handed out, in order. */
      const issued: number[] = [];
      const highest = () => Math.max(0, ...issued);
      /** Every token handed out before `current`: all of them fenced on the record holding `current`. */
      const checkFenced = async (current: number, state: string, what: string) => {
        for (const token of issued.filter((candidate) => candidate !== current)) {
          assert.deepEqual(await store.markStarted({ key, fencing_token: token, lease_ms: LEASE }), { ok: false, reason: 'fenced', state }, `${what}: markStarted ${token}`);
          assert.deepEqual(await store.release({ key, fencing_token: token, handler_declared_not_started: true }), { ok: false, reason: 'fenced', state }, `${what}: release ${token}`);
        }
      };
      // Each round: a record claimed (then taken over `takeovers` times) and ended, purged with
      // `olderThan` once finished that long, then the clock moved by `step` from the purge (back by
      // more than the retention, by less, not at all, forward).
      const rounds = [
        { olderThan: 0, takeovers: 0, end: 'release', step: -1 },
        { olderThan: 60_000, takeovers: 2, end: 'complete', step: -60_001 },
        { olderThan: 1, takeovers: 1, end: 'expire', step: -3_600_000 },
        { olderThan: LEASE, takeovers: 0, end: 'complete', step: -LEASE - 5 },
        { olderThan: 0, takeovers: 3, end: 'release', step: 0 },
        { olderThan: 10, takeovers: 0, end: 'expire', step: -5 },
        { olderThan: 0, takeovers: 1, end: 'complete', step: 7_200_000 },
        { olderThan: 0, takeovers: 0, end: 'release', step: -86_400_000 },
      ] as const;
      for (const [index, round] of rounds.entries()) {
        const what = `round ${index}`;
        // A first claim: above the clock reading and above every token the purged records had.
        const expected = Math.max(clock.now(), highest()) + 1;
        const first = await store.claim(claimInput(key, { owner: `host-${index}`, lease: 1_000 }));
        assert.deepEqual(first, { kind: 'claimed', fencing_token: expected, lease_expires_at: clock.now() + 1_000, took_over: false }, what);
        issued.push(expected);
        await checkFenced(expected, 'claimed', what);
        let current = expected;
        for (let takeover = 0; takeover < round.takeovers; takeover += 1) {
          clock.advance(1_000);
          const next = await store.claim(claimInput(key, { owner: `host-${index}-${takeover}`, lease: 1_000 }));
          assert.deepEqual(next, { kind: 'claimed', fencing_token: current + 1, lease_expires_at: clock.now() + 1_000, took_over: true }, `${what}: takeover ${takeover}`);
          current += 1;
          issued.push(current);
        }
        await checkFenced(current, 'claimed', what);
        if (round.end === 'release') assert.equal((await store.release({ key, fencing_token: current })).ok, true, what);
        if (round.end === 'complete') {
          assert.equal((await store.markStarted({ key, fencing_token: current, lease_ms: 1_000 })).ok, true, what);
          assert.equal((await store.complete({ key, fencing_token: current, result: { sealed_json: SEALED_1, receipt: null } })).ok, true, what);
        }
        // ('expire': the claim's lease runs out, nothing started.) Purged once past every time and
        // token of the record by the retention.
        const record = await store.get(key);
        assert.ok(record !== undefined, what);
        clock.set(Math.max(clock.now(), record.fencing_token, record.lease_expires_at, record.updated_at) + round.olderThan);
        assert.equal(await store.purgeExpired({ older_than_ms: round.olderThan }), 1, `${what}: purged`);
        assert.equal(await store.get(key), undefined, what);
        clock.set(clock.now() + round.step);
      }
      // The last record: above everything, and no earlier token moves it.
      const lastToken = Math.max(clock.now(), highest()) + 1;
      const last = await store.claim(claimInput(key, { owner: 'host-last' }));
      assert.deepEqual(last, { kind: 'claimed', fencing_token: lastToken, lease_expires_at: clock.now() + LEASE, took_over: false });
      issued.push(lastToken);
      await checkFenced(lastToken, 'claimed', 'last');
      assert.equal(new Set(issued).size, issued.length, 'no token twice');
      assert.equal((await store.get(key))?.owner, 'host-last');
    }),

    define('input: malformed inputs throw StoreInputError and write nothing', async ({ store }) => {
      const bad: Array<() => Promise<unknown>> = [
        () => store.claim(claimInput('')),
        () => store.claim(claimInput('k'.repeat(257))),
        () => store.claim(claimInput('nul\u0000key')),
        () => store.claim(claimInput('lone\uD800')),
        () => store.claim(claimInput('key-x', { request: 'A'.repeat(64) })),
        () => store.claim(claimInput('key-x', { request: 'a'.repeat(63) })),
        () => store.claim(claimInput('key-x', { intent: 'A'.repeat(64) })),
        () => store.claim(claimInput('key-x', { intent: 'a'.repeat(65) })),
        () => store.claim(claimInput('key-x', { intent: '' })),
        () => store.claim(claimInput('key-x', { intent: 7 as unknown as string })),
        () => store.claim(claimInput('key-x', { lease: 0 })),
        () => store.claim(claimInput('key-x', { lease: 1.5 })),
        () => store.claim(claimInput('key-x', { owner: '' })),
        () => store.claim(claimInput('key-x', { lease: MAX_LEASE_MS + 1 })),
        () => store.claim(claimInput('key-x', { lease: Number.MAX_SAFE_INTEGER })),
        () => store.markStarted({ key: 'key-x', fencing_token: 0, lease_ms: LEASE }),
        () => store.markStarted({ key: 'key-x', fencing_token: FIRST, lease_ms: MAX_LEASE_MS + 1 }),
        () => store.markUnknown({ key: 'key-x', fencing_token: 0 }),
        () => store.markUnknown({ key: '', fencing_token: FIRST }),
        () => store.reconcile({ key: 'key-x', request_sha256: 'A'.repeat(64), result: { sealed_json: SEALED_1, receipt: null } }),
        () => store.reconcile({ key: 'key-x', request_sha256: 'a'.repeat(64), result: { sealed_json: 'x\uDC00', receipt: null } }),
        () => store.reconcile(null as unknown as ReconcileInput),
        () => store.complete({ key: 'key-x', fencing_token: FIRST, result: { sealed_json: 'x\uDC00', receipt: null } }),
        () => store.complete({ key: 'key-x', fencing_token: FIRST, result: { sealed_json: SEALED_1, receipt: 'r'.repeat(257) } }),
        () => store.release({ key: 'key-x', fencing_token: FIRST, handler_declared_not_started: 'yes' } as unknown as ReleaseInput),
        () => store.purgeExpired({ older_than_ms: -1 }),
        () => store.purgeExpired(undefined as unknown as PurgeInput),
        () => store.purgeExpired(null as unknown as PurgeInput),
        () => store.purgeExpired('older' as unknown as PurgeInput),
        () => store.get(''),
      ];
      for (const [index, call] of bad.entries()) {
        await assert.rejects(call, (error: unknown) => StoreInputError.isInstance(error), `bad input #${index}`);
      }
      assert.equal(await store.get('key-x'), undefined);
      const longest = 'k'.repeat(256);
      assert.equal((await store.claim(claimInput(longest))).kind, 'claimed', 'a 256-character key is fine');
      assert.equal((await store.claim(claimInput('\u{1F511} \u00e9'))).kind, 'claimed', 'non-ASCII keys are fine');
    }),

    define('concurrency: concurrent claims of one key have exactly one winner', async ({ store }) => {
      const keys = ['key-race-1', 'key-race-2', 'key-race-3', 'key-race-4'];
      const claims = Array.from({ length: concurrency }, (_, index) =>
        store.claim(claimInput(keys[index % keys.length] ?? 'key-race-1', { owner: `host-${index}` })),
      );
      const outcomes = await Promise.all(claims);
      for (const key of keys) {
        const forKey = outcomes.filter((_, index) => keys[index % keys.length] === key);
        assert.equal(forKey.filter((outcome) => outcome.kind === 'claimed').length, 1, key);
        assert.equal(forKey.filter((outcome) => outcome.kind === 'in_progress').length, forKey.length - 1, key);
      }
      const started = await Promise.all(
        Array.from({ length: concurrency }, () => store.markStarted({ key: 'key-race-1', fencing_token: FIRST, lease_ms: LEASE })),
      );
      assert.equal(started.filter((outcome) => outcome.ok).length, 1, 'exactly one markStarted wins');
    }),

    define('records handed out are copies: editing what complete, get, a replay and findUnresolved return changes nothing stored', async ({ store }) => {
      // A store that hands out its own objects lets any caller rewrite a record: a completed write
      // turned `released` is claimed, and run, again (store-author review).
      const scribble = (value: unknown): void => {
        for (const target of [value, (value as { result?: unknown } | null)?.result]) {
          if (typeof target !== 'object' || target === null) continue;
          for (const [key, replacement] of [['state', 'released'], ['sealed_json', '{"forged":true}'], ['fencing_token', FIRST + 99]] as const) {
            try {
              (target as Record<string, unknown>)[key] = replacement;
            } catch {
              // frozen: fine
            }
          }
        }
      };
      assert.equal((await store.claim(claimInput('key-copy-started'))).kind, 'claimed');
      assert.equal((await store.markStarted({ key: 'key-copy-started', fencing_token: FIRST, lease_ms: LEASE })).ok, true);
      assert.equal((await store.claim(claimInput('key-copy'))).kind, 'claimed');
      const started = await store.markStarted({ key: 'key-copy', fencing_token: FIRST, lease_ms: LEASE });
      scribble(started.ok ? started.record : null);
      const result = { sealed_json: SEALED_1, receipt: 'r-1' };
      const completed = await store.complete({ key: 'key-copy', fencing_token: FIRST, result });
      assert.equal(completed.ok, true);
      scribble(result);
      scribble(completed.ok ? completed.record : null);
      scribble(await store.get('key-copy'));
      scribble(await store.claim(claimInput('key-copy')));
      for (const record of (await store.findUnresolved?.({ request_sha256: REQUEST_A, limit: 10 })) ?? []) scribble(record);
      const stored = await store.get('key-copy');
      assert.equal(stored?.state, 'completed');
      assert.equal(stored?.fencing_token, FIRST);
      assert.equal(stored?.result?.sealed_json, SEALED_1);
      assert.equal(stored?.result?.receipt, 'r-1');
      const replay = await store.claim(claimInput('key-copy'));
      assert.equal(replay.kind === 'completed' && replay.delivery, 'local_replay');
      assert.equal(replay.kind === 'completed' && replay.result.sealed_json, SEALED_1);
      assert.equal((await store.get('key-copy-started'))?.state, 'started');
    }),

    define('concurrency: concurrent takeovers of an expired claim, and claims of a released key, have exactly one winner', async ({ store, clock }) => {
      // A takeover is an update of the record seen, conditional on its token and state: a store
      // that writes it unconditionally hands two hosts the same key (store-author review).
      assert.equal((await store.claim(claimInput('key-take-expired', { owner: 'host-gone' }))).kind, 'claimed');
      assert.equal((await store.claim(claimInput('key-take-released', { owner: 'host-gone' }))).kind, 'claimed');
      assert.equal((await store.release({ key: 'key-take-released', fencing_token: FIRST })).ok, true);
      clock.advance(LEASE + 1);
      for (const key of ['key-take-expired', 'key-take-released']) {
        const outcomes = await Promise.all(Array.from({ length: concurrency }, (_, index) => store.claim(claimInput(key, { owner: `host-${index}` }))));
        const winners = outcomes.filter((outcome) => outcome.kind === 'claimed');
        assert.equal(winners.length, 1, `${key}: ${JSON.stringify(outcomes.map((outcome) => outcome.kind))}`);
        assert.equal(outcomes.filter((outcome) => outcome.kind === 'in_progress').length, concurrency - 1, key);
        // Whatever tokens the losers may have seen, one markStarted at most goes through.
        const tokens = new Set(winners.map((outcome) => (outcome.kind === 'claimed' ? outcome.fencing_token : 0)));
        const started = await Promise.all([...tokens].map((token) => store.markStarted({ key, fencing_token: token, lease_ms: LEASE })));
        assert.equal(started.filter((outcome) => outcome.ok).length, 1, key);
      }
    }),

    // ---------------------------------------------------------------- audit log
    define('append: chains entries from the genesis hash with the documented hash', async ({ log, clock, digester }) => {
      assert.equal(await log.head(), null);
      const first = await log.append(entryInput(1));
      clock.advance(1_500);
      const second = await log.append(entryInput(2));
      assert.equal(first.sequence, 1);
      assert.equal(first.previous_hash, GENESIS_HASH);
      assert.equal(first.recorded_at, '2026-07-19T00:00:00.000Z');
      assert.equal(second.sequence, 2);
      assert.equal(second.previous_hash, first.entry_hash);
      assert.equal(second.recorded_at, '2026-07-19T00:00:01.500Z');
      for (const entry of [first, second]) {
        const input = entryInput(entry.sequence);
        const record = {
          body: input.body,
          call_id: input.call_id,
          idempotency_key: input.idempotency_key,
          kind: input.kind,
          operation_id: input.operation_id,
          recorded_at: entry.recorded_at,
          schema_version: AUDIT_ENTRY_SCHEMA_VERSION,
          sequence: entry.sequence,
        };
        assert.equal(entry.canonical, canonicalize(record));
        assert.equal(
          entry.entry_hash,
          digester.digestTagged(AUDIT_CHAIN_DOMAIN, { entry: JSON.parse(entry.canonical) as unknown, previous_hash: entry.previous_hash }),
        );
        assert.deepEqual(entry.body, input.body);
      }
      assert.deepEqual(await log.head(), { sequence: 2, entry_hash: second.entry_hash });
      assert.deepEqual(await log.verifyChain(), { ok: true, checked: 2, head: { sequence: 2, entry_hash: second.entry_hash }, anchored: false });
    }),

    define('append: a keyed digester makes an HMAC chain', async ({ log, digester }) => {
      const entry = await log.append(entryInput(1));
      assert.equal(digester.keyed, true);
      const unkeyed = createDigester();
      assert.notEqual(
        entry.entry_hash,
        unkeyed.digestTagged(AUDIT_CHAIN_DOMAIN, { entry: JSON.parse(entry.canonical) as unknown, previous_hash: GENESIS_HASH }),
      );
      assert.equal(
        entry.entry_hash,
        digester.digestTagged(AUDIT_CHAIN_DOMAIN, { entry: JSON.parse(entry.canonical) as unknown, previous_hash: GENESIS_HASH }),
      );
      assert.equal((await log.verifyChain()).ok, true);
    }, chainKey),

    define('keyed: an audit log that reports keyed reports false for an unkeyed digester', async ({ log, digester }) => {
      assert.equal(digester.keyed, false);
      if (log.keyed !== undefined) assert.equal(log.keyed, false);
    }),

    define('keyed: an audit log that reports keyed reports true for a keyed digester', async ({ log, digester }) => {
      assert.equal(digester.keyed, true);
      if (log.keyed !== undefined) assert.equal(log.keyed, true);
    }, chainKey),

    {
      // A review found `keyed` checked as a boolean, then read again for `auditLog.keyed` (the value
      // a keyed dispatcher trusts): a getter could pass the check and be reported otherwise.
      name: 'keyed: the digester\'s keyed is read once, and the value checked is the value reported',
      run: async () => {
        const keyedDigester = createDigester({ key: chainKey });
        let reads = 0;
        const flipping = {
          digestTagged: keyedDigester.digestTagged,
          digestText: keyedDigester.digestText,
          get keyed(): unknown {
            reads += 1;
            return reads === 1 ? true : 'no';
          },
        };
        const stores = await factory({ clock: new ManualClock(T0), digester: flipping as unknown as Digester });
        try {
          if (stores.auditLog.keyed !== undefined) assert.equal(stores.auditLog.keyed, true);
          assert.equal(reads <= 1, true);
        } finally {
          await stores.close();
        }
      },
    },

    define('append: bad entries throw StoreInputError and leave the chain unchanged', async ({ log }) => {
      await log.append(entryInput(1));
      const bad: AuditEntryInput[] = [
        { ...entryInput(2), kind: 'Sealed-Call' },
        { ...entryInput(2), kind: '' },
        { ...entryInput(2), call_id: '' },
        { ...entryInput(2), operation_id: 'x'.repeat(257) },
        { ...entryInput(2), idempotency_key: 'nul\u0000' },
        { ...entryInput(2), body: { text: 'lone \uD800 surrogate' } },
        { ...entryInput(2), body: { value: Number.NaN } },
        { ...entryInput(2), body: { big: 'x'.repeat(1024 * 1024) } },
        { ...entryInput(2), body: [1, 2] as unknown as AuditEntryInput['body'] },
      ];
      for (const [index, entry] of bad.entries()) {
        await assert.rejects(log.append(entry), (error: unknown) => StoreInputError.isInstance(error), `bad entry #${index}`);
      }
      assert.equal((await log.head())?.sequence, 1);
      const next = await log.append(entryInput(2));
      assert.equal(next.sequence, 2, 'no sequence was consumed by a rejected entry');
      assert.deepEqual(await log.verifyChain(), { ok: true, checked: 2, head: { sequence: 2, entry_hash: next.entry_hash }, anchored: false });
    }),

    define(`append: a body ${MAX_AUDIT_BODY_DEPTH} levels deep is stored and verifies; one level deeper is refused`, async ({ log }) => {
      const nested = (depth: number): AuditEntryInput['body'] => {
        let body: AuditEntryInput['body'] = {};
        for (let level = 1; level < depth; level++) body = { a: body };
        return body;
      };
      const deepest = await log.append({ ...entryInput(1), body: nested(MAX_AUDIT_BODY_DEPTH) });
      await assert.rejects(
        log.append({ ...entryInput(2), body: nested(MAX_AUDIT_BODY_DEPTH + 1) }),
        (error: unknown) => StoreInputError.isInstance(error) && /max_depth/.test((error as Error).message),
      );
      const next = await log.append(entryInput(2));
      assert.equal(next.sequence, 2);
      assert.deepEqual(await log.verifyChain(), { ok: true, checked: 2, head: { sequence: 2, entry_hash: next.entry_hash }, anchored: false });
      assert.equal(deepest.sequence, 1);
    }),

    define('append: bodies round-trip exactly through the stored canonical text', async ({ log }) => {
      const body = {
        text: 'caf\u00e9 \u{1F600} "q" \\ \u0000 \u001f \u2028 </script>',
        numbers: [0, -0.5, 1e21, 1e-7, 9007199254740991, 123.456],
        nested: { z: null, a: [true, false, {}], '\u00e9': 'e acute', '': 'empty key' },
        __proto__key: 'plain',
      };
      const appended = await log.append({ kind: 'sealed_call', call_id: 'call-\u00e9', operation_id: null, idempotency_key: null, body });
      const page = await log.query({ call_id: 'call-\u00e9' }, { limit: 10 });
      assert.equal(page.entries.length, 1);
      const [stored] = page.entries;
      assert.equal(stored?.canonical, appended.canonical);
      assert.equal(canonicalize(stored?.body), canonicalize(body));
      assert.deepEqual(stored, { ...appended, body: stored?.body });
      assert.equal((await log.verifyChain()).ok, true);
    }),

    define('append: an entry whose fields answer differently on each read is stored as checked, or refused with StoreInputError', async ({ log }) => {
      await log.append(entryInput(1));
      // [the first `reads` reads, every later read] per field: a valid value first and an invalid one
      // after (a store reading a field again would store what it did not check), and the other
      // way round; for 1, 2 and 3 reads, whatever a store's number of reads before it stores.
      const variants: Array<Record<keyof AuditEntryInput, [unknown, unknown]>> = [
        {
          kind: ['sealed_call', 'Not A Kind; anything at all, longer than the sixty-four characters a kind may have'],
          call_id: ['call-shifting', 'nul\u0000'],
          operation_id: ['op-shifting', ''],
          idempotency_key: [null, 'x'.repeat(257)],
          body: [{ amount: 1, stored: true }, { amount: 2, returned: true }],
        },
        {
          kind: ['approval', 7],
          call_id: [null, 42],
          operation_id: [null, { op: 1 }],
          idempotency_key: ['key-shifting', 'lone \uD800'],
          body: [{ amount: 3 }, [1, 2]],
        },
        {
          kind: ['Sealed-Call', 'sealed_call'],
          call_id: ['call-shifting', 'call-shifting'],
          operation_id: [null, null],
          idempotency_key: [null, null],
          body: [{ amount: 4 }, { amount: 4 }],
        },
        {
          kind: ['sealed_call', 'sealed_call'],
          call_id: [7, 'call-shifting'],
          operation_id: [null, null],
          idempotency_key: [null, null],
          body: [{ amount: 5 }, { amount: 5 }],
        },
        {
          kind: ['sealed_call', 'sealed_call'],
          call_id: [null, null],
          operation_id: [null, null],
          idempotency_key: [null, null],
          body: [null, { amount: 6 }],
        },
        {
          kind: ['sealed_call', 'sealed_call'],
          call_id: ['call-shifting', 'call-shifting'],
          operation_id: [null, null],
          idempotency_key: [null, null],
          body: [{ amount: 7, stored: true }, { amount: 8, returned: true }],
        },
      ];
      let appended = 1;
      const runs = [1, 2, 3].flatMap((reads) => variants.map((variant, index) => ({ reads, variant, index: `${index} (${reads} reads)` })));
      for (const { reads: validReads, variant, index } of runs) {
        const input = {} as AuditEntryInput;
        for (const [field, [first, later]] of Object.entries(variant)) {
          let reads = 0;
          Object.defineProperty(input, field, { enumerable: true, get: () => (++reads <= validReads ? first : later) });
        }
        let entry: AuditEntry;
        try {
          entry = await log.append(input);
        } catch (error) {
          assert.ok(StoreInputError.isInstance(error), `variant #${index}: only a StoreInputError may refuse it (${String(error)})`);
          continue;
        }
        appended += 1;
        assert.equal(entry.sequence, appended, `variant #${index}`);
        const record = JSON.parse(entry.canonical) as Record<string, unknown>;
        assert.ok(typeof entry.kind === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(entry.kind), `variant #${index}: kind ${String(entry.kind)}`);
        for (const field of ['call_id', 'operation_id', 'idempotency_key'] as const) {
          const value: unknown = entry[field];
          assert.ok(
            value === null || (typeof value === 'string' && value.length >= 1 && value.length <= 256 && !value.includes('\u0000') && isWellFormedText(value)),
            `variant #${index}: ${field} ${JSON.stringify(value)}`,
          );
        }
        for (const field of ['kind', 'call_id', 'operation_id', 'idempotency_key'] as const) {
          assert.equal(record[field], entry[field], `variant #${index}: the stored ${field} is the one returned`);
        }
        assert.deepEqual(entry.body, record['body'], `variant #${index}: the returned body is the one stored`);
        const stored = (await log.query({}, { limit: 1, after: entry.sequence - 1 })).entries[0];
        assert.deepEqual(stored, entry, `variant #${index}: read back as returned`);
      }
      const head = await log.head();
      assert.equal(head?.sequence, appended);
      assert.deepEqual(await log.verifyChain(), { ok: true, checked: appended, head, anchored: false });
      const next = await log.append(entryInput(2));
      assert.deepEqual(await log.verifyChain(), {
        ok: true,
        checked: appended + 1,
        head: { sequence: appended + 1, entry_hash: next.entry_hash },
        anchored: false,
      });
    }),

    define('query: filters by call id, operation id, idempotency key, kind and time range', async ({ log, clock }) => {
      const appended: AuditEntry[] = [];
      for (let index = 1; index <= 12; index += 1) {
        appended.push(
          await log.append({
            kind: index % 3 === 0 ? 'reconciliation' : 'sealed_call',
            call_id: `call-${index % 4}`,
            operation_id: `op-${index}`,
            idempotency_key: index % 2 === 0 ? 'key-even' : null,
            body: { index },
          }),
        );
        clock.advance(1_000);
      }
      const sequences = async (filter: Parameters<AuditLog['query']>[0]) =>
        (await log.query(filter, { limit: 100 })).entries.map((entry) => entry.sequence);
      assert.deepEqual(await sequences({}), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      assert.deepEqual(await sequences({ call_id: 'call-1' }), [1, 5, 9]);
      assert.deepEqual(await sequences({ operation_id: 'op-7' }), [7]);
      assert.deepEqual(await sequences({ idempotency_key: 'key-even' }), [2, 4, 6, 8, 10, 12]);
      assert.deepEqual(await sequences({ kind: 'reconciliation' }), [3, 6, 9, 12]);
      assert.deepEqual(await sequences({ kind: 'reconciliation', idempotency_key: 'key-even' }), [6, 12]);
      assert.deepEqual(await sequences({ call_id: 'call-9' }), []);
      // Entry n was recorded at T0 + (n - 1) s; from is inclusive, to exclusive.
      assert.deepEqual(await sequences({ from_time: '2026-07-19T00:00:03Z', to_time: '2026-07-19T00:00:06.000Z' }), [4, 5, 6]);
      assert.deepEqual(await sequences({ from_time: '2026-07-19T02:00:03+02:00', to_time: '2026-07-19T00:00:05Z' }), [4, 5]);
      assert.deepEqual(await sequences({ from_time: '2026-07-19T00:00:02.0001Z' }), [4, 5, 6, 7, 8, 9, 10, 11, 12]);
      assert.deepEqual(await sequences({ to_time: '2026-07-19T00:00:00Z' }), []);
      const entry = (await log.query({ operation_id: 'op-7' }, { limit: 1 })).entries[0];
      assert.deepEqual(entry, appended[6]);
      await assert.rejects(log.query({ from_time: '19 July 2026' }, { limit: 10 }), (error: unknown) => StoreInputError.isInstance(error));
      await assert.rejects(log.query({}, { limit: 0 }), (error: unknown) => StoreInputError.isInstance(error));
      await assert.rejects(log.query({}, { limit: 1001 }), (error: unknown) => StoreInputError.isInstance(error));
      // A misspelt member would otherwise widen the query to the whole log.
      await assert.rejects(log.query({ idempotencyKey: 'k' } as AuditQuery, { limit: 10 }), (error: unknown) => StoreInputError.isInstance(error));
      await assert.rejects(log.query({}, { limit: 10, cursor: 3 } as AuditPageRequest), (error: unknown) => StoreInputError.isInstance(error));
    }),

    define('query: pages with limit and the next cursor', async ({ log }) => {
      for (let index = 1; index <= 7; index += 1) {
        await log.append({ ...entryInput(index), call_id: index === 4 ? 'call-other' : 'call-page' });
      }
      const seen: number[][] = [];
      let after: number | undefined;
      for (;;) {
        const page = await log.query({ call_id: 'call-page' }, after === undefined ? { limit: 2 } : { limit: 2, after });
        seen.push(page.entries.map((entry) => entry.sequence));
        if (page.next === null) break;
        after = page.next;
      }
      assert.deepEqual(seen, [[1, 2], [3, 5], [6, 7]]);
      const exact = await log.query({}, { limit: 7 });
      assert.equal(exact.entries.length, 7);
      assert.equal(exact.next, null, 'no next page when the page ends exactly at the last entry');
      assert.deepEqual(await log.query({}, { limit: 5, after: 7 }), { entries: [], next: null });
    }),

    define('verifyChain: empty and intact logs verify; from and anchor', async ({ log }) => {
      assert.deepEqual(await log.verifyChain(), { ok: true, checked: 0, head: null, anchored: false });
      const entries = await appendMany(log, 6);
      const head = { sequence: 6, entry_hash: entries[5]?.entry_hash ?? '' };
      assert.deepEqual(await log.verifyChain(), { ok: true, checked: 6, head, anchored: false });
      assert.deepEqual(await log.verifyChain({ from: 4 }), { ok: true, checked: 3, head, anchored: false });
      const anchor = { sequence: 3, entry_hash: entries[2]?.entry_hash ?? '' };
      assert.deepEqual(await log.verifyChain({ anchor }), { ok: true, checked: 6, head, anchored: true });
      assert.deepEqual(await log.verifyChain({ anchor: head }), { ok: true, checked: 6, head, anchored: true });
      // An anchor at `from - 1` is compared with the stored hash the check starts from.
      assert.deepEqual(await log.verifyChain({ from: 4, anchor }), { ok: true, checked: 3, head, anchored: true });
      assert.deepEqual(await log.verifyChain({ from: 7, anchor: head }), { ok: true, checked: 0, head: null, anchored: true });
      // An anchor further before `from` is never compared with a row, so it does not count.
      assert.deepEqual(await log.verifyChain({ from: 5, anchor }), { ok: true, checked: 2, head, anchored: false });
      assert.deepEqual(await log.verifyChain({ anchor: { sequence: 3, entry_hash: 'f'.repeat(64) } }), {
        ok: false,
        position: 3,
        problem: 'edited',
        detail: 'anchor_mismatch',
      });
      assert.deepEqual(await log.verifyChain({ anchor: { sequence: 9, entry_hash: 'f'.repeat(64) } }), {
        ok: false,
        position: 7,
        problem: 'deleted',
        detail: 'anchor_beyond_end',
      });
    }),

    define('verifyChain: a malformed anchor or from throws a RangeError, and is never reported as anchored', async ({ log, stores, digester }) => {
      const entries = await appendMany(log, 3);
      const head = { sequence: 3, entry_hash: entries[2]?.entry_hash ?? '' };
      // An unkeyed full rewrite: only a well-formed anchor can catch it (see the rewrite case).
      const rows = await stores.tamper.readRows();
      let previous = GENESIS_HASH;
      const rewritten = rows.map((row) => {
        const canonical = row.canonical.replace(/"amount":\d+/, '"amount":1');
        const entry_hash = digester.digestTagged(AUDIT_CHAIN_DOMAIN, { entry: JSON.parse(canonical) as unknown, previous_hash: previous });
        const next = { ...row, canonical, previous_hash: previous, entry_hash };
        previous = entry_hash;
        return next;
      });
      await stores.tamper.writeRows(rewritten);
      await stores.tamper.writeHead({ sequence: 3, entry_hash: previous });
      assert.deepEqual(await log.verifyChain({ anchor: head }), { ok: false, position: 3, problem: 'edited', detail: 'anchor_mismatch' });
      const badAnchors: unknown[] = [
        { sequence: '3', entry_hash: head.entry_hash }, // a PostgreSQL bigint or an environment variable read back as text
        { sequence: 2.5, entry_hash: 'not-a-hash' },
        { sequence: 2.5, entry_hash: head.entry_hash },
        { sequence: 0, entry_hash: head.entry_hash },
        { sequence: -3, entry_hash: head.entry_hash },
        { sequence: Number.NaN, entry_hash: head.entry_hash },
        { sequence: Number.POSITIVE_INFINITY, entry_hash: head.entry_hash },
        { sequence: 2 ** 53, entry_hash: head.entry_hash },
        { sequence: 3, entry_hash: head.entry_hash.toUpperCase() },
        { sequence: 3, entry_hash: head.entry_hash.slice(1) },
        { sequence: 3 },
        { entry_hash: head.entry_hash },
        null,
        'head',
      ];
      for (const anchor of badAnchors) {
        await assert.rejects(
          log.verifyChain({ anchor: anchor as AuditHead }),
          (error: unknown) => error instanceof RangeError && /anchor/.test(error.message),
          `anchor ${JSON.stringify(anchor)}`,
        );
      }
      for (const from of ['2', 0, 1.5, Number.NaN, null]) {
        await assert.rejects(log.verifyChain({ from: from as number }), RangeError, `from ${JSON.stringify(from)}`);
      }
    }),

    {
      name: "log identity: a log with a logId begins at its own genesis hash, and another log's chain does not verify in its place",
      run: async () => {
        const clock = new ManualClock(T0);
        const digester = createDigester({ key: chainKey });
        const opened: ConformanceStores[] = [];
        try {
          const tenantA = await factory({ clock, digester, logId: 'tenant-a' });
          opened.push(tenantA);
          const tenantB = await factory({ clock, digester, logId: 'tenant-b' });
          opened.push(tenantB);
          const unlabelled = await factory({ clock, digester });
          opened.push(unlabelled);
          const [firstA] = await appendMany(tenantA.auditLog, 3);
          const [firstB] = await appendMany(tenantB.auditLog, 5);
          const [firstUnlabelled] = await appendMany(unlabelled.auditLog, 2);
          // The documented formula, computed here rather than through the package's helper.
          assert.equal(firstA?.previous_hash, digester.digestTagged(AUDIT_GENESIS_DOMAIN, { log_id: 'tenant-a' }));
          assert.equal(firstB?.previous_hash, digester.digestTagged(AUDIT_GENESIS_DOMAIN, { log_id: 'tenant-b' }));
          assert.notEqual(firstA?.previous_hash, GENESIS_HASH);
          assert.equal(firstUnlabelled?.previous_hash, GENESIS_HASH, 'without a logId the genesis hash stays 64 zeros');
          for (const stores of opened) assert.equal((await stores.auditLog.verifyChain()).ok, true);

          const ownRows = await tenantB.tamper.readRows();
          const ownHead = await tenantB.auditLog.head();
          // Someone who can write tenant B's tables replaces its whole log with a genuine other chain.
          for (const source of [tenantA, unlabelled]) {
            await tenantB.tamper.writeRows(await source.tamper.readRows());
            await tenantB.tamper.writeHead(await source.auditLog.head());
            assert.deepEqual(await tenantB.auditLog.verifyChain(), {
              ok: false,
              position: 1,
              problem: 'broken_link',
              detail: 'genesis_mismatch',
            });
          }
          // Tenant B's own rows, put back, verify again: nothing else about the log changed.
          await tenantB.tamper.writeRows(ownRows);
          await tenantB.tamper.writeHead(ownHead);
          assert.deepEqual(await tenantB.auditLog.verifyChain(), { ok: true, checked: 5, head: ownHead, anchored: false });
        } finally {
          for (const stores of opened) await stores.close();
        }
      },
    },

    define('concurrency: concurrent appends form one linear chain', async ({ log }) => {
      const appended = await Promise.all(Array.from({ length: concurrency }, (_, index) => log.append(entryInput(index + 1))));
      const sequences = appended.map((entry) => entry.sequence).sort((a, b) => a - b);
      assert.deepEqual(sequences, Array.from({ length: concurrency }, (_, index) => index + 1));
      const verification = await log.verifyChain();
      assert.equal(verification.ok, true);
      assert.equal(verification.ok && verification.checked, concurrency);
    }),

    // ---------------------------------------------------------------- audit log: tampering
    ...tamperCases(define, chainKey),
  ];
}

/**
 * The cases of the optional `IdempotencyStore.findUnresolved`, for stores that implement it (run
 * them beside `storeConformanceCases`): which records it finds, in which order, its input checks,
 * and that it changes nothing.
 */
export function findUnresolvedConformanceCases(factory: StoreFactory): ConformanceCase[] {
  const define = lookupCaseDefiner(factory, 'findUnresolved');
  const find = (store: IdempotencyStore, request_sha256: string, limit = 100) => {
    if (store.findUnresolved === undefined) throw new assert.AssertionError({ message: 'findUnresolved is missing' });
    return store.findUnresolved({ request_sha256, limit });
  };
  const findByIntent = (store: IdempotencyStore, intent_sha256: string, limit = 100) => {
    if (store.findUnresolved === undefined) throw new assert.AssertionError({ message: 'findUnresolved is missing' });
    return store.findUnresolved({ intent_sha256, limit });
  };
  const keysOf = (records: IdempotencyRecord[]) => records.map((record) => record.key);

  return [
    define('findUnresolved: finds the started, unknown and live claimed records of one request digest, under any key, oldest first', async ({ store, clock }) => {
      const keys = await recordsInEveryState(store, clock);
      // Not unresolved: another digest's unknown record, and a claim of this digest whose lease ran out.
      await store.claim(claimInput('key-other-request', { request: REQUEST_B }));
      const other = await store.get('key-other-request');
      assert.equal((await store.markStarted({ key: 'key-other-request', fencing_token: other?.fencing_token ?? 0, lease_ms: LEASE })).ok, true);
      assert.equal((await store.markUnknown({ key: 'key-other-request', fencing_token: other?.fencing_token ?? 0 })).ok, true);
      await store.claim(claimInput('key-expired-claim', { lease: 10 }));
      // A started record whose lease ran out is still unresolved (a claim would turn it unknown).
      await store.claim(claimInput('key-a-started-expired'));
      const expired = await store.get('key-a-started-expired');
      assert.equal((await store.markStarted({ key: 'key-a-started-expired', fencing_token: expired?.fencing_token ?? 0, lease_ms: 10 })).ok, true);
      clock.advance(10);

      const found = await find(store, REQUEST_A);
      assert.deepEqual(
        found.map((record) => [record.key, record.state]),
        [
          [keys.started, 'started'],
          [keys.unknown, 'unknown'],
          // Both made at T0 + 2 * LEASE: by key.
          ['key-a-started-expired', 'started'],
          [keys.claimed, 'claimed'],
        ],
      );
      assert.deepEqual(found[0], await store.get(keys.started), 'whole records, as get returns them');
      assert.deepEqual(
        (await find(store, REQUEST_A, 2)).map((record) => record.key),
        [keys.started, keys.unknown],
        'at most limit records',
      );
      assert.deepEqual((await find(store, REQUEST_B)).map((record) => record.key), ['key-other-request']);
      // A released key taken over by another request digest is found under that digest only.
      assert.equal((await store.claim(claimInput(keys.released, { request: REQUEST_B, owner: OWNER_2 }))).kind, 'claimed');
      assert.deepEqual((await find(store, REQUEST_B)).map((record) => record.key), [keys.released, 'key-other-request']);
      assert.equal((await find(store, REQUEST_A)).some((record) => record.key === keys.released), false);
      assert.deepEqual(await find(store, 'c'.repeat(64)), []);
      // Once the claimed record's lease runs out, nothing can start under it any more.
      clock.advance(LEASE);
      assert.deepEqual(
        (await find(store, REQUEST_A)).map((record) => record.key),
        [keys.started, keys.unknown, 'key-a-started-expired'],
      );
    }),

    define('findUnresolved: orders keys by UTF-16 code units, also where a limit cuts through one created_at', async ({ store, clock }) => {
      // UTF-16 code-unit order differs from the UTF-8 byte order a database may compare text by:
      // U+1F600 and U+10FFFF are surrogate pairs (D83D.., DBFF..) below U+E000 and U+FFFD in
      // UTF-16, but their UTF-8 (F0.., F4..) sorts above theirs (EE.., EF..).
      const tied = ['\uFFFD', '\u{1F600}', 'a', '\uE000x', '\u{10FFFF}'];
      await recordInState(store, 'b', 'claimed');
      await recordInState(store, 'done', 'completed');
      clock.advance(1);
      // Five records with one created_at, in every unresolved state, and two resolved ones beside them.
      for (const [index, key] of tied.entries()) await recordInState(store, key, (['claimed', 'started', 'unknown'] as const)[index % 3] ?? 'claimed');
      await recordInState(store, 'given-back', 'released');
      await recordInState(store, 'other-request', 'started', REQUEST_B);
      clock.advance(1);
      await recordInState(store, 'c', 'started');

      // Oldest first, then by key in code-unit order, written out from the contract.
      const expectedOrder = ['b', 'a', '\u{1F600}', '\u{10FFFF}', '\uE000x', '\uFFFD', 'c'];
      const found = await find(store, REQUEST_A);
      assert.deepEqual(found.map((record) => record.key), expectedOrder);
      assert.deepEqual(found.map((record) => record.created_at), [T0, T0 + 1, T0 + 1, T0 + 1, T0 + 1, T0 + 1, T0 + 2]);
      for (let limit = 1; limit <= expectedOrder.length + 1; limit += 1) {
        const limited = await find(store, REQUEST_A, limit);
        assert.deepEqual(limited.map((record) => record.key), expectedOrder.slice(0, limit), `limit ${limit}`);
        assert.deepEqual(limited, found.slice(0, limit), `limit ${limit}: whole records`);
      }
    }),

    define('findUnresolved: a read that changes nothing, and refuses malformed inputs with StoreInputError', async ({ store, clock }) => {
      await recordsInEveryState(store, clock);
      clock.advance(10 * 3_600_000);
      const before = await store.get('key-s-started');
      await find(store, REQUEST_A);
      assert.deepEqual(await store.get('key-s-started'), before, 'an expired started record stays started (no transition)');
      for (const input of [
        { request_sha256: 'A'.repeat(64), limit: 1 },
        { request_sha256: REQUEST_A, limit: 0 },
        { request_sha256: REQUEST_A, limit: 101 },
        { request_sha256: REQUEST_A, limit: 1.5 },
        null,
      ]) {
        await assert.rejects(
          () => (store.findUnresolved as NonNullable<IdempotencyStore['findUnresolved']>)(input as never),
          (error: unknown) => StoreInputError.isInstance(error),
          JSON.stringify(input),
        );
      }
    }),

    // ---------------------------------------------------------------- by intent digest
    define('findUnresolved by intent: the unresolved records of one intent digest, under any key and any request digest, oldest first', async ({ store, clock }) => {
      // Intent X under three request digests (a deploy bumped a contract revision twice).
      await recordInState(store, 'x-started-a', 'started', REQUEST_A, INTENT_X);
      clock.advance(1);
      await recordInState(store, 'x-unknown-b', 'unknown', REQUEST_B, INTENT_X);
      // Resolved records of intent X are never found: completed, released, a claim whose lease ran out.
      await recordInState(store, 'x-completed', 'completed', REQUEST_A, INTENT_X);
      await recordInState(store, 'x-released', 'released', REQUEST_B, INTENT_X);
      assert.equal((await store.claim(claimInput('x-expired-claim', { request: REQUEST_C, intent: INTENT_X, lease: 1 }))).kind, 'claimed');
      // Another intent's record, and records of the same request digests claimed without an intent.
      await recordInState(store, 'y-started', 'started', REQUEST_A, INTENT_Y);
      await recordInState(store, 'none-started-a', 'started', REQUEST_A);
      await recordInState(store, 'null-unknown-b', 'unknown', REQUEST_B, null);
      clock.advance(1);
      await recordInState(store, 'x-claimed-c', 'claimed', REQUEST_C, INTENT_X);

      const found = await findByIntent(store, INTENT_X);
      assert.deepEqual(
        found.map((record) => [record.key, record.state, record.request_sha256]),
        [
          ['x-started-a', 'started', REQUEST_A],
          ['x-unknown-b', 'unknown', REQUEST_B],
          ['x-claimed-c', 'claimed', REQUEST_C],
        ],
      );
      assert.deepEqual(found, await Promise.all(keysOf(found).map((key) => store.get(key))), 'whole records, as get returns them');
      assert.ok(found.every((record) => record.intent_sha256 === INTENT_X));
      assert.deepEqual(found.map((record) => record.created_at), [T0, T0 + 1, T0 + 2]);
      assert.deepEqual(keysOf(await findByIntent(store, INTENT_X, 2)), ['x-started-a', 'x-unknown-b'], 'at most limit records');
      assert.deepEqual(keysOf(await findByIntent(store, INTENT_X, 1)), ['x-started-a']);
      assert.deepEqual(keysOf(await findByIntent(store, INTENT_Y)), ['y-started']);
      assert.deepEqual(await findByIntent(store, '3'.repeat(64)), []);
      // The request lookups are unchanged: they find records with and without an intent.
      assert.deepEqual(keysOf(await find(store, REQUEST_A)), ['x-started-a', 'none-started-a', 'y-started']);
      assert.deepEqual(keysOf(await find(store, REQUEST_B)), ['null-unknown-b', 'x-unknown-b']);
      // Once the live claim's lease runs out, nothing can start under it any more.
      clock.advance(LEASE);
      assert.deepEqual(keysOf(await findByIntent(store, INTENT_X)), ['x-started-a', 'x-unknown-b']);
    }),

    define('findUnresolved by intent: orders keys by UTF-16 code units, also where a limit cuts through one created_at', async ({ store, clock }) => {
      const tied = ['\uFFFD', '\u{1F600}', 'a', '\uE000x', '\u{10FFFF}'];
      await recordInState(store, 'b', 'claimed', REQUEST_A, INTENT_X);
      await recordInState(store, 'done', 'completed', REQUEST_A, INTENT_X);
      clock.advance(1);
      // Five records with one created_at, under two request digests, and resolved or other ones beside them.
      for (const [index, key] of tied.entries()) {
        await recordInState(store, key, (['claimed', 'started', 'unknown'] as const)[index % 3] ?? 'claimed', index % 2 === 0 ? REQUEST_A : REQUEST_B, INTENT_X);
      }
      await recordInState(store, 'given-back', 'released', REQUEST_B, INTENT_X);
      await recordInState(store, 'other-intent', 'started', REQUEST_A, INTENT_Y);
      await recordInState(store, 'no-intent', 'started', REQUEST_A);
      clock.advance(1);
      await recordInState(store, 'c', 'started', REQUEST_C, INTENT_X);

      const expectedOrder = ['b', 'a', '\u{1F600}', '\u{10FFFF}', '\uE000x', '\uFFFD', 'c'];
      const found = await findByIntent(store, INTENT_X);
      assert.deepEqual(keysOf(found), expectedOrder);
      for (let limit = 1; limit <= expectedOrder.length + 1; limit += 1) {
        const limited = await findByIntent(store, INTENT_X, limit);
        assert.deepEqual(keysOf(limited), expectedOrder.slice(0, limit), `limit ${limit}`);
        assert.deepEqual(limited, found.slice(0, limit), `limit ${limit}: whole records`);
      }
    }),

    define('findUnresolved by intent: a takeover moves a record to its new intent; a purged and re-claimed key is found under its new intent only', async ({ store, clock }) => {
      await recordInState(store, 'key-moved', 'claimed', REQUEST_A, INTENT_X);
      await recordInState(store, 'key-purged', 'completed', REQUEST_A, INTENT_X);
      assert.deepEqual(keysOf(await findByIntent(store, INTENT_X)), ['key-moved']);
      clock.advance(LEASE);
      // The claim ran out before it started: taken over by another request digest and intent.
      assert.equal((await store.claim(claimInput('key-moved', { request: REQUEST_B, intent: INTENT_Y, owner: OWNER_2 }))).kind, 'claimed');
      assert.deepEqual(await findByIntent(store, INTENT_X), []);
      assert.deepEqual(keysOf(await findByIntent(store, INTENT_Y)), ['key-moved']);
      assert.deepEqual(keysOf(await find(store, REQUEST_B)), ['key-moved']);
      // Taken over again by a claim without an intent: found by no intent any more.
      assert.equal((await store.release({ key: 'key-moved', fencing_token: FIRST + 1 })).ok, true);
      assert.equal((await store.claim(claimInput('key-moved', { request: REQUEST_B }))).kind, 'claimed');
      assert.deepEqual(await findByIntent(store, INTENT_Y), []);
      assert.deepEqual(keysOf(await find(store, REQUEST_B)), ['key-moved']);
      // Retention deletes the completed record; the key claimed afresh under intent Y and started.
      assert.equal(await store.purgeExpired({ older_than_ms: 0 }), 1);
      assert.equal(await store.get('key-purged'), undefined);
      await recordInState(store, 'key-purged', 'started', REQUEST_C, INTENT_Y);
      assert.deepEqual(await findByIntent(store, INTENT_X), []);
      assert.deepEqual(keysOf(await findByIntent(store, INTENT_Y)), ['key-purged']);
      assert.equal((await store.get('key-purged'))?.intent_sha256, INTENT_Y);
    }),

    define('findUnresolved: exactly one of request_sha256 and intent_sha256, each 64 lowercase hex, or StoreInputError', async ({ store }) => {
      await recordInState(store, 'key-both', 'started', REQUEST_A, INTENT_X);
      const findUnresolved = (input: unknown) => (store.findUnresolved as NonNullable<IdempotencyStore['findUnresolved']>)(input as FindUnresolvedInput);
      for (const input of [
        { request_sha256: REQUEST_A, intent_sha256: INTENT_X, limit: 1 },
        { limit: 1 },
        { request_sha256: undefined, intent_sha256: undefined, limit: 1 },
        { intent_sha256: 'A'.repeat(64), limit: 1 },
        { intent_sha256: '1'.repeat(63), limit: 1 },
        { intent_sha256: null, limit: 1 },
        { intent_sha256: INTENT_X, limit: 0 },
        { intent_sha256: INTENT_X, limit: 101 },
        { intent_sha256: INTENT_X },
      ]) {
        await assert.rejects(() => findUnresolved(input), (error: unknown) => StoreInputError.isInstance(error), JSON.stringify(input));
      }
      // A digest given as `undefined` counts as absent.
      assert.deepEqual(keysOf(await findUnresolved({ request_sha256: undefined, intent_sha256: INTENT_X, limit: 1 })), ['key-both']);
      assert.deepEqual(keysOf(await findUnresolved({ request_sha256: REQUEST_A, intent_sha256: undefined, limit: 1 })), ['key-both']);
    }),
  ];
}

/** Defines cases of an optional lookup `method` of `IdempotencyStore`, each on fresh stores at T0. */
function lookupCaseDefiner(factory: StoreFactory, method: 'findUnresolved' | 'findCompleted') {
  return (name: string, body: (context: { store: IdempotencyStore; clock: ManualClock }) => Promise<void>): ConformanceCase => ({
    name,
    run: async () => {
      const clock = new ManualClock(T0);
      const stores = await factory({ clock, digester: createDigester() });
      try {
        const store = stores.idempotencyStore;
        assert.equal(typeof store[method], 'function', `the store implements ${method}`);
        await body({ store, clock });
      } finally {
        await stores.close();
      }
    },
  });
}

/**
 * The cases of the optional `IdempotencyStore.findCompleted`, for stores that implement it (run
 * them beside `storeConformanceCases`): which records it finds, in which order, its input checks,
 * and that it changes nothing.
 */
export function findCompletedConformanceCases(factory: StoreFactory): ConformanceCase[] {
  const define = lookupCaseDefiner(factory, 'findCompleted');
  const findCompleted = (store: IdempotencyStore, input: unknown) => {
    if (store.findCompleted === undefined) throw new assert.AssertionError({ message: 'findCompleted is missing' });
    return store.findCompleted(input as FindCompletedInput);
  };
  const find = async (store: IdempotencyStore, intent_sha256: string, limit = 100) =>
    (await findCompleted(store, { intent_sha256, limit })).map((record) => record.key);

  return [
    define('findCompleted: the completed records of one intent digest, under any key and any request digest, oldest first', async ({ store, clock }) => {
      // Intent X completed under two request digests (a contract revision bumped between them).
      await recordInState(store, 'x-completed-a', 'completed', REQUEST_A, INTENT_X);
      clock.advance(1);
      await recordInState(store, 'x-completed-b', 'completed', REQUEST_B, INTENT_X);
      // Completed by a status query that found the receipt (`receipt_reconciled`).
      await recordInState(store, 'x-reconciled', 'unknown', REQUEST_C, INTENT_X);
      assert.equal((await store.reconcile({ key: 'x-reconciled', request_sha256: REQUEST_C, result: { sealed_json: SEALED_2, receipt: 'receipt-1' } })).ok, true);
      // Not completed: never found, whatever their lease.
      for (const state of ['claimed', 'started', 'unknown', 'released'] as const) await recordInState(store, `x-${state}`, state, REQUEST_A, INTENT_X);
      // Completed, but of another intent, or claimed without one.
      await recordInState(store, 'y-completed', 'completed', REQUEST_A, INTENT_Y);
      await recordInState(store, 'none-completed', 'completed', REQUEST_A);
      await recordInState(store, 'null-completed', 'completed', REQUEST_A, null);

      const found = await findCompleted(store, { intent_sha256: INTENT_X, limit: 100 });
      assert.deepEqual(
        found.map((record) => [record.key, record.state, record.request_sha256, record.result?.delivery]),
        [
          ['x-completed-a', 'completed', REQUEST_A, 'fresh'],
          ['x-completed-b', 'completed', REQUEST_B, 'fresh'],
          ['x-reconciled', 'completed', REQUEST_C, 'receipt_reconciled'],
        ],
      );
      assert.deepEqual(found, await Promise.all(found.map((record) => store.get(record.key))), 'whole records, as get returns them');
      assert.ok(found.every((record) => record.intent_sha256 === INTENT_X));
      assert.deepEqual(await find(store, INTENT_X, 2), ['x-completed-a', 'x-completed-b'], 'at most limit records');
      assert.deepEqual(await find(store, INTENT_X, 1), ['x-completed-a']);
      assert.deepEqual(await find(store, INTENT_Y), ['y-completed']);
      assert.deepEqual(await find(store, '3'.repeat(64)), []);
      // Long after, whatever the leases: completed records stay found until retention deletes them.
      clock.advance(10 * LEASE);
      assert.deepEqual(await find(store, INTENT_X), ['x-completed-a', 'x-completed-b', 'x-reconciled']);
    }),

    define('findCompleted: orders keys by UTF-16 code units, also where a limit cuts through one created_at', async ({ store, clock }) => {
      const tied = ['\uFFFD', '\u{1F600}', 'a', '\uE000x', '\u{10FFFF}'];
      await recordInState(store, 'b', 'completed', REQUEST_A, INTENT_X);
      await recordInState(store, 'live', 'started', REQUEST_A, INTENT_X);
      clock.advance(1);
      for (const [index, key] of tied.entries()) await recordInState(store, key, 'completed', index % 2 === 0 ? REQUEST_A : REQUEST_B, INTENT_X);
      await recordInState(store, 'other-intent', 'completed', REQUEST_A, INTENT_Y);
      clock.advance(1);
      await recordInState(store, 'c', 'completed', REQUEST_C, INTENT_X);

      const expectedOrder = ['b', 'a', '\u{1F600}', '\u{10FFFF}', '\uE000x', '\uFFFD', 'c'];
      const found = await findCompleted(store, { intent_sha256: INTENT_X, limit: 100 });
      assert.deepEqual(found.map((record) => record.key), expectedOrder);
      for (let limit = 1; limit <= expectedOrder.length + 1; limit += 1) {
        const limited = await findCompleted(store, { intent_sha256: INTENT_X, limit });
        assert.deepEqual(limited, found.slice(0, limit), `limit ${limit}: whole records`);
      }
    }),

    define('findCompleted: orders by when a record was created, not when it completed', async ({ store, clock }) => {
      const first = await store.claim(claimInput('made-first', { intent: INTENT_X }));
      clock.advance(1);
      const second = await store.claim(claimInput('made-second', { intent: INTENT_X }));
      assert.ok(first.kind === 'claimed' && second.kind === 'claimed');
      for (const [key, claim] of [['made-second', second], ['made-first', first]] as const) {
        clock.advance(1);
        const fenced = { key, fencing_token: claim.fencing_token };
        assert.equal((await store.markStarted({ ...fenced, lease_ms: LEASE })).ok, true);
        assert.equal((await store.complete({ ...fenced, result: { sealed_json: SEALED_1, receipt: null } })).ok, true);
      }
      assert.deepEqual(await find(store, INTENT_X), ['made-first', 'made-second']);
      assert.deepEqual(await find(store, INTENT_X, 1), ['made-first']);
    }),

    define('findCompleted: a purged record is not found, and a key claimed afresh is found under its new intent once completed', async ({ store, clock }) => {
      await recordInState(store, 'key-purged', 'completed', REQUEST_A, INTENT_X);
      clock.advance(1);
      await recordInState(store, 'key-kept', 'completed', REQUEST_A, INTENT_X);
      // Completed at T0 + 1, after the cutoff (T0): kept; the first one goes.
      assert.equal(await store.purgeExpired({ older_than_ms: 1 }), 1);
      assert.deepEqual(await find(store, INTENT_X), ['key-kept']);
      await recordInState(store, 'key-purged', 'started', REQUEST_B, INTENT_Y);
      assert.deepEqual(await find(store, INTENT_Y), []);
      const started = await store.get('key-purged');
      const fenced = { key: 'key-purged', fencing_token: started?.fencing_token ?? 0 };
      assert.equal((await store.complete({ ...fenced, result: { sealed_json: SEALED_2, receipt: null } })).ok, true);
      assert.deepEqual(await find(store, INTENT_Y), ['key-purged']);
      assert.deepEqual(await find(store, INTENT_X), ['key-kept']);
    }),

    define('findCompleted: a read that changes nothing, and refuses malformed inputs with StoreInputError', async ({ store, clock }) => {
      await recordInState(store, 'key-done', 'completed', REQUEST_A, INTENT_X);
      await recordInState(store, 'key-started', 'started', REQUEST_A, INTENT_X);
      clock.advance(10 * 3_600_000);
      const before = [await store.get('key-done'), await store.get('key-started')];
      assert.deepEqual(await find(store, INTENT_X), ['key-done']);
      assert.deepEqual([await store.get('key-done'), await store.get('key-started')], before, 'no transition (the expired started record stays started)');
      for (const input of [
        { intent_sha256: 'A'.repeat(64), limit: 1 },
        { intent_sha256: '1'.repeat(63), limit: 1 },
        { intent_sha256: null, limit: 1 },
        { request_sha256: REQUEST_A, limit: 1 },
        { intent_sha256: INTENT_X, limit: 0 },
        { intent_sha256: INTENT_X, limit: 101 },
        { intent_sha256: INTENT_X, limit: 1.5 },
        { intent_sha256: INTENT_X },
        null,
        'x'.repeat(64),
      ]) {
        await assert.rejects(() => findCompleted(store, input), (error: unknown) => StoreInputError.isInstance(error), JSON.stringify(input));
      }
    }),
  ];
}

type Define = (name: string, body: (context: CaseContext) => Promise<void>, key?: Uint8Array) => ConformanceCase;

function tamperCases(define: Define, chainKey: Uint8Array): ConformanceCase[] {
  const N = 8;
  const K = 4;
  const attackerDigester = createDigester({ key: new TextEncoder().encode('an attacker does not have the key') });

  async function expectProblem(log: AuditLog, expected: { position: number; problem: string; detail?: string }) {
    const verification = await log.verifyChain();
    assert.equal(verification.ok, false, 'the tampering is detected');
    if (verification.ok) return;
    assert.equal(verification.problem, expected.problem);
    assert.equal(verification.position, expected.position);
    if (expected.detail !== undefined) assert.equal(verification.detail, expected.detail);
  }

  function rowAt(rows: StoredAuditRow[], sequence: number): StoredAuditRow {
    const row = rows.find((candidate) => candidate.sequence === sequence);
    assert.ok(row, `row ${sequence}`);
    return row;
  }

  function forge(sequence: number, previous_hash: string, digester: Digester, recorded_at = '2026-07-19T00:00:00.000Z') {
    const prepared = prepareAuditEntry({ kind: 'approval', call_id: 'call-forged', operation_id: null, idempotency_key: null, body: { approved: true } });
    return sealAuditEntry(prepared, { sequence, recorded_at, previous_hash }, digester);
  }

  return [
    define('tamper: an edited body is detected at its position', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      const target = rowAt(rows, K);
      target.canonical = target.canonical.replace('"amount":4', '"amount":9');
      await stores.tamper.writeRows(rows);
      await expectProblem(log, { position: K, problem: 'edited', detail: 'entry_hash_mismatch' });
    }),

    define('tamper: an edited query column is detected at its position', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      rowAt(rows, K).call_id = 'call-hidden';
      await stores.tamper.writeRows(rows);
      await expectProblem(log, { position: K, problem: 'edited', detail: 'column_mismatch' });
    }),

    define('tamper: every other query column edited is detected at its position (idempotency key, operation id, kind, recorded_at)', async ({ log, stores }) => {
      // Each one is an index `query` reads by: a verifier that skips one lets an entry be hidden
      // from queries by that column (store-author review).
      const edits: Array<[string, (row: ReturnType<typeof rowAt>) => void]> = [
        ['idempotency_key changed', (row) => (row.idempotency_key = 'key-hidden')],
        ['idempotency_key removed', (row) => (row.idempotency_key = null)],
        ['operation_id changed', (row) => (row.operation_id = 'op-hidden')],
        ['kind changed', (row) => (row.kind = 'approval')],
        ['recorded_at changed', (row) => (row.recorded_at = '2026-07-19T00:00:09.999Z')],
      ];
      await appendMany(log, N);
      const original = await stores.tamper.readRows();
      for (const [label, edit] of edits) {
        const rows = structuredClone(original);
        edit(rowAt(rows, K));
        await stores.tamper.writeRows(rows);
        try {
          await expectProblem(log, { position: K, problem: 'edited', detail: 'column_mismatch' });
        } catch (error) {
          throw new assert.AssertionError({ message: `${label}: ${error instanceof Error ? error.message : String(error)}` });
        }
        await stores.tamper.writeRows(structuredClone(original));
      }
      assert.equal((await log.verifyChain()).ok, true, 'the rows put back verify');
    }),

    define('tamper: a re-serialized (non-canonical) entry is detected', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      const target = rowAt(rows, K);
      target.canonical = JSON.stringify(JSON.parse(target.canonical), null, 1);
      await stores.tamper.writeRows(rows);
      await expectProblem(log, { position: K, problem: 'edited', detail: 'not_canonical' });
    }),

    define('tamper: an edit re-hashed without the key is detected at its position', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      const target = rowAt(rows, K);
      target.canonical = target.canonical.replace('"amount":4', '"amount":9');
      target.entry_hash = attackerDigester.digestTagged(AUDIT_CHAIN_DOMAIN, { entry: JSON.parse(target.canonical) as unknown, previous_hash: target.previous_hash });
      await stores.tamper.writeRows(rows);
      await expectProblem(log, { position: K, problem: 'edited', detail: 'entry_hash_mismatch' });
    }, chainKey),

    define('tamper: a deleted entry is detected at its position', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      await stores.tamper.writeRows(rows.filter((row) => row.sequence !== K));
      await expectProblem(log, { position: K, problem: 'deleted' });
    }),

    define('tamper: a deleted and renumbered entry is detected at its position', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      const kept = rows.filter((row) => row.sequence !== K).map((row) => (row.sequence > K ? { ...row, sequence: row.sequence - 1 } : row));
      await stores.tamper.writeRows(kept);
      await expectProblem(log, { position: K, problem: 'deleted' });
    }),

    define('tamper: a truncated tail is detected against the stored head and an anchor', async ({ log, stores }) => {
      const entries = await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      await stores.tamper.writeRows(rows.filter((row) => row.sequence < N - 1));
      await expectProblem(log, { position: N - 1, problem: 'deleted', detail: 'truncated' });
      // An attacker who also rewinds the stored head is caught by a head saved elsewhere.
      const previous = rowAt(rows, N - 2);
      await stores.tamper.writeHead({ sequence: N - 2, entry_hash: previous.entry_hash });
      assert.deepEqual(
        await log.verifyChain(),
        { ok: true, checked: N - 2, head: { sequence: N - 2, entry_hash: previous.entry_hash }, anchored: false },
        'without an anchor the shorter chain is self-consistent, and the result says it was not anchored',
      );
      const anchor = { sequence: N, entry_hash: entries[N - 1]?.entry_hash ?? '' };
      assert.deepEqual(await log.verifyChain({ anchor }), {
        ok: false,
        position: N - 1,
        problem: 'deleted',
        detail: 'anchor_beyond_end',
      });
    }),

    define('tamper: a forged entry inserted without the key is detected at its position', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      const forged = forge(K, rowAt(rows, K - 1).entry_hash, attackerDigester);
      const shifted = rows.map((row) => (row.sequence >= K ? { ...row, sequence: row.sequence + 1 } : row));
      shifted.splice(K - 1, 0, forged);
      await stores.tamper.writeRows(shifted);
      await expectProblem(log, { position: K, problem: 'inserted', detail: 'forged_entry' });
    }, chainKey),

    define('tamper: a self-consistent forged entry (unkeyed chain) is detected at its position', async ({ log, stores, digester }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      const forged = forge(K, rowAt(rows, K - 1).entry_hash, digester);
      const shifted = rows.map((row) => (row.sequence >= K ? { ...row, sequence: row.sequence + 1 } : row));
      shifted.splice(K - 1, 0, forged);
      await stores.tamper.writeRows(shifted);
      await expectProblem(log, { position: K, problem: 'inserted', detail: 'forked' });
    }),

    define('tamper: a replayed copy of an earlier entry is detected where it was inserted', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      await stores.tamper.writeRows([...rows, { ...rowAt(rows, 2), sequence: N + 1 }]);
      await expectProblem(log, { position: N + 1, problem: 'inserted', detail: 'sequence_repeated' });
    }),

    define('tamper: an entry appended behind the stored head is detected', async ({ log, stores, digester }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      await stores.tamper.writeRows([...rows, forge(N + 1, rowAt(rows, N).entry_hash, digester)]);
      await expectProblem(log, { position: N + 1, problem: 'inserted', detail: 'beyond_head' });
    }),

    define('tamper: swapped entries are detected as reordered at the first position', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      const a = rowAt(rows, K);
      const b = rowAt(rows, K + 1);
      const swapped = rows.map((row) =>
        row.sequence === K ? { ...b, sequence: K } : row.sequence === K + 1 ? { ...a, sequence: K + 1 } : row,
      );
      await stores.tamper.writeRows(swapped);
      await expectProblem(log, { position: K, problem: 'reordered' });
    }),

    define('tamper: a moved entry is detected as reordered where it went missing', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      // Entry 2 moved to the end; every column renumbered so the storage order is 1,3,4,...,N,2.
      const order = [1, ...Array.from({ length: N - 2 }, (_, index) => index + 3), 2];
      await stores.tamper.writeRows(order.map((sequence, index) => ({ ...rowAt(rows, sequence), sequence: index + 1 })));
      await expectProblem(log, { position: 2, problem: 'reordered' });
    }),

    define('tamper: a rewritten previous_hash is detected as a broken link', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      rowAt(rows, K).previous_hash = 'e'.repeat(64);
      await stores.tamper.writeRows(rows);
      await expectProblem(log, { position: K, problem: 'broken_link' });
    }),

    define(
      'tamper: with a key but no anchor, dropping the newest entries and rewinding the head is only reported as unanchored',
      async ({ log, stores }) => {
        const entries = await appendMany(log, 3);
        const rows = await stores.tamper.readRows();
        await stores.tamper.writeRows(rows.slice(0, 2));
        await stores.tamper.writeHead({ sequence: 2, entry_hash: rowAt(rows, 2).entry_hash });
        const head = { sequence: 2, entry_hash: entries[1]?.entry_hash ?? '' };
        // The HMAC cannot help: nothing was forged, only removed. The result must not claim more.
        assert.deepEqual(await log.verifyChain(), { ok: true, checked: 2, head, anchored: false });
        const anchor = { sequence: 3, entry_hash: entries[2]?.entry_hash ?? '' };
        assert.deepEqual(await log.verifyChain({ anchor }), { ok: false, position: 3, problem: 'deleted', detail: 'anchor_beyond_end' });
      },
      chainKey,
    ),

    define('tamper: a full unkeyed rewrite is caught only by an anchor kept outside the store', async ({ log, stores, digester }) => {
      const entries = await appendMany(log, N);
      const anchor = { sequence: N - 1, entry_hash: entries[N - 2]?.entry_hash ?? '' };
      const rows = await stores.tamper.readRows();
      const { rewritten, head } = rehashWithoutKey(rows, K, K, rowAt(rows, K - 1).entry_hash, digester);
      await stores.tamper.writeRows(rewritten);
      await stores.tamper.writeHead({ sequence: N, entry_hash: head });
      assert.equal((await log.verifyChain()).ok, true, 'self-consistent without a key or an anchor');
      assert.deepEqual(await log.verifyChain({ anchor }), {
        ok: false,
        position: N - 1,
        problem: 'edited',
        detail: 'anchor_mismatch',
      });
    }),

    define('tamper: a full unkeyed rewrite is caught verifying incrementally from just past the anchor', async ({ log, stores, digester }) => {
      const entries = await appendMany(log, N);
      const anchor = { sequence: N, entry_hash: entries[N - 1]?.entry_hash ?? '' };
      // The host's incremental check before the rewrite: nothing new, and the anchor still holds.
      assert.deepEqual(await log.verifyChain({ from: N + 1, anchor }), { ok: true, checked: 0, head: null, anchored: true });
      // Every entry re-hashed without a key (one body changed), the head row moved along with it.
      const { rewritten, head } = rehashWithoutKey(await stores.tamper.readRows(), K, 1, GENESIS_HASH, digester);
      await stores.tamper.writeRows(rewritten);
      await stores.tamper.writeHead({ sequence: N, entry_hash: head });
      assert.equal((await log.verifyChain()).ok, true, 'self-consistent without a key or an anchor');
      assert.equal((await log.verifyChain({ from: N + 1 })).ok, true, 'self-consistent from just past the end without an anchor');
      const mismatch = { ok: false, position: N, problem: 'edited', detail: 'anchor_mismatch' };
      // From just past the anchor no row is checked, but the anchor is compared with entry N's stored hash.
      assert.deepEqual(await log.verifyChain({ from: N + 1, anchor }), mismatch);
      assert.deepEqual(await log.verifyChain({ from: N, anchor }), mismatch);
      assert.deepEqual(await log.verifyChain({ anchor }), mismatch);
      // An earlier anchor, checked from just past it while later entries exist.
      const earlier = { sequence: N - 2, entry_hash: entries[N - 3]?.entry_hash ?? '' };
      assert.deepEqual(await log.verifyChain({ from: N - 1, anchor: earlier }), { ok: false, position: N - 2, problem: 'edited', detail: 'anchor_mismatch' });
    }),

    define('tamper: a rewritten head is detected from just past the last entry, and no unchecked head is returned as verified', async ({ log, stores }) => {
      const malformed = [
        { sequence: -1, entry_hash: 'f'.repeat(64) },
        { sequence: 1, entry_hash: 'F'.repeat(64) },
        { sequence: 1, entry_hash: 'not a hash' },
      ];
      // An empty log whose head row was given a value no append could have written.
      for (const head of malformed) {
        await stores.tamper.writeHead(head);
        assert.deepEqual(await log.verifyChain(), { ok: false, position: 1, problem: 'edited', detail: 'head_malformed' }, JSON.stringify(head));
      }
      // Sequence 0 is how a durable store spells an empty log's head: either an empty log, or refused.
      await stores.tamper.writeHead({ sequence: 0, entry_hash: 'f'.repeat(64) });
      const zero = await log.verifyChain();
      assert.ok(!zero.ok || (zero.checked === 0 && zero.head === null), `head 0: ${JSON.stringify(zero)}`);
      await stores.tamper.writeHead(null);

      const entries = await appendMany(log, N);
      const head = { sequence: N, entry_hash: entries[N - 1]?.entry_hash ?? '' };
      // Nothing after the last entry: nothing checked, so no head (the host keeps the anchor it has).
      assert.deepEqual(await log.verifyChain({ from: N + 1 }), { ok: true, checked: 0, head: null, anchored: false });
      assert.deepEqual(await log.verifyChain({ from: N }), { ok: true, checked: 1, head, anchored: false });

      // The head row rewritten by someone who can write the database: caught from N + 1 as from 1.
      await stores.tamper.writeHead({ sequence: N, entry_hash: 'e'.repeat(64) });
      for (const from of [1, N, N + 1]) {
        assert.deepEqual(await log.verifyChain({ from }), { ok: false, position: N, problem: 'edited', detail: 'head_mismatch' }, `from ${from}`);
      }
      // Rewound behind entry N, or to "empty": entry N lies beyond the head.
      for (const rewound of [{ sequence: N - 1, entry_hash: entries[N - 2]?.entry_hash ?? '' }, null]) {
        await stores.tamper.writeHead(rewound);
        assert.deepEqual(
          await log.verifyChain({ from: N + 1 }),
          { ok: false, position: N, problem: 'inserted', detail: 'beyond_head' },
          JSON.stringify(rewound),
        );
      }
      // Moved past the end: truncated, from N + 1 as from 1.
      await stores.tamper.writeHead({ sequence: N + 2, entry_hash: 'e'.repeat(64) });
      assert.deepEqual(await log.verifyChain({ from: N + 1 }), { ok: false, position: N + 1, problem: 'deleted', detail: 'truncated' });
      assert.deepEqual(await log.verifyChain(), { ok: false, position: N + 1, problem: 'deleted', detail: 'truncated' });
      // Malformed heads are never returned, whatever was checked.
      for (const bad of [...malformed, { sequence: N, entry_hash: head.entry_hash.toUpperCase() }]) {
        await stores.tamper.writeHead(bad);
        for (const from of [1, N + 1]) {
          assert.deepEqual(
            await log.verifyChain({ from }),
            { ok: false, position: N, problem: 'edited', detail: 'head_malformed' },
            `${JSON.stringify(bad)} from ${from}`,
          );
        }
      }
      await stores.tamper.writeHead(head);
      assert.deepEqual(await log.verifyChain({ from: N + 1 }), { ok: true, checked: 0, head: null, anchored: false });
      assert.deepEqual(await log.verifyChain(), { ok: true, checked: N, head, anchored: false });
    }),

    define('tamper: verifyChain from a later position trusts the entry before it', async ({ log, stores }) => {
      await appendMany(log, N);
      const rows = await stores.tamper.readRows();
      rowAt(rows, 2).call_id = 'call-hidden';
      await stores.tamper.writeRows(rows);
      assert.equal((await log.verifyChain({ from: 3 })).ok, true);
      await expectProblem(log, { position: 2, problem: 'edited' });
      await stores.tamper.writeRows(rows.filter((row) => row.sequence !== 4));
      assert.deepEqual(await log.verifyChain({ from: 5 }), { ok: false, position: 4, problem: 'deleted', detail: 'missing' });
    }),
  ];
}

/**
 * An attacker's unkeyed rewrite: entry `changed`'s body edited (`amount` 4 → 9) and every entry
 * from `from` on re-hashed in order from `previous`, as a database writer without the chain key
 * can. Returns the rows and the new head hash.
 */
function rehashWithoutKey(
  rows: StoredAuditRow[],
  changed: number,
  from: number,
  previous: string,
  digester: Digester,
): { rewritten: StoredAuditRow[]; head: string } {
  let head = previous;
  const rewritten = rows.map((row) => {
    if (row.sequence < from) return row;
    const canonical = row.sequence === changed ? row.canonical.replace('"amount":4', '"amount":9') : row.canonical;
    const entry_hash = digester.digestTagged(AUDIT_CHAIN_DOMAIN, { entry: JSON.parse(canonical) as unknown, previous_hash: head });
    const next = { ...row, canonical, previous_hash: head, entry_hash };
    head = entry_hash;
    return next;
  });
  return { rewritten, head };
}

function claimInput(key: string, options: { request?: string; intent?: string | null; owner?: string; lease?: number } = {}): ClaimInput {
  return {
    key,
    request_sha256: options.request ?? REQUEST_A,
    ...(options.intent === undefined ? {} : { intent_sha256: options.intent }),
    owner: options.owner ?? OWNER_1,
    lease_ms: options.lease ?? LEASE,
  };
}

function entryInput(index: number): AuditEntryInput {
  return {
    kind: 'sealed_call',
    call_id: `call-${index}`,
    operation_id: `op-${index}`,
    idempotency_key: index % 2 === 0 ? `key-${index}` : null,
    body: { amount: index, result_sha256: 'd'.repeat(64), note: `entry ${index}` },
  };
}

async function appendMany(log: AuditLog, count: number): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for (let index = 1; index <= count; index += 1) entries.push(await log.append(entryInput(index)));
  return entries;
}

/** One record in each state, all for REQUEST_A, from a clock at T0; leaves the clock at T0 + 2 * LEASE. */
async function recordsInEveryState(store: IdempotencyStore, clock: ManualClock) {
  const keys = { claimed: 'key-s-claimed', started: 'key-s-started', completed: 'key-s-completed', unknown: 'key-s-unknown', released: 'key-s-released' };
  const expectOk = (outcome: FencedOutcome | ClaimOutcome) =>
    assert.ok('ok' in outcome ? outcome.ok : outcome.kind === 'claimed', JSON.stringify(outcome));
  for (const key of Object.values(keys)) {
    if (key !== keys.claimed) expectOk(await store.claim(claimInput(key)));
  }
  expectOk(await store.markStarted({ key: keys.started, fencing_token: FIRST, lease_ms: 10 * 3_600_000 }));
  expectOk(await store.markStarted({ key: keys.completed, fencing_token: FIRST, lease_ms: LEASE }));
  expectOk(await store.complete({ key: keys.completed, fencing_token: FIRST, result: { sealed_json: SEALED_1, receipt: 'r-1' } }));
  expectOk(await store.markStarted({ key: keys.unknown, fencing_token: FIRST, lease_ms: LEASE }));
  expectOk(await store.markUnknown({ key: keys.unknown, fencing_token: FIRST }));
  expectOk(await store.release({ key: keys.released, fencing_token: FIRST }));
  clock.advance(2 * LEASE);
  expectOk(await store.claim(claimInput(keys.claimed)));
  return keys;
}

/** Claims `key` for `request` at the clock's reading and leaves its record in `state`. */
async function recordInState(
  store: IdempotencyStore,
  key: string,
  state: IdempotencyRecord['state'],
  request = REQUEST_A,
  intent?: string | null,
): Promise<void> {
  const claim = await store.claim(claimInput(key, { request, ...(intent === undefined ? {} : { intent }) }));
  assert.equal(claim.kind, 'claimed', `claim of ${key}`);
  if (claim.kind !== 'claimed' || state === 'claimed') return;
  const fenced = { key, fencing_token: claim.fencing_token };
  if (state === 'released') {
    assert.equal((await store.release(fenced)).ok, true);
    return;
  }
  assert.equal((await store.markStarted({ ...fenced, lease_ms: LEASE })).ok, true);
  if (state === 'unknown') assert.equal((await store.markUnknown(fenced)).ok, true);
  if (state === 'completed') assert.equal((await store.complete({ ...fenced, result: { sealed_json: SEALED_1, receipt: null } })).ok, true);
}

/**
 * Claims `key` for `request` (default 64 `a`s) and `intent`, when given, at the store clock's
 * reading, as owner `host-a` with a one-minute lease, and leaves its record in `state`. For store
 * tests that need records in a given state (migrations, lookups); throws on any refused step.
 */
export async function recordIn(
  store: IdempotencyStore,
  key: string,
  state: IdempotencyRecord['state'],
  request = 'a'.repeat(64),
  intent?: string,
): Promise<void> {
  const claim = await store.claim({ key, request_sha256: request, ...(intent === undefined ? {} : { intent_sha256: intent }), owner: 'host-a', lease_ms: 60_000 });
  if (claim.kind !== 'claimed') throw new Error(`claim of ${key}: ${claim.kind}`);
  const fenced = { key, fencing_token: claim.fencing_token };
  if (state === 'claimed') return;
  if (state === 'released') {
    assert.equal((await store.release(fenced)).ok, true);
    return;
  }
  assert.equal((await store.markStarted({ ...fenced, lease_ms: 60_000 })).ok, true);
  if (state === 'unknown') assert.equal((await store.markUnknown(fenced)).ok, true);
  if (state === 'completed') assert.equal((await store.complete({ ...fenced, result: { sealed_json: '{}', receipt: null } })).ok, true);
}

/**
 * The record a store's pre-migration fixture writes as `key-old` (state `started`, owner
 * `host-old`, fencing token 7, a lease to `now` + 60 s, created 5 ms before `now`, updated at
 * `now`), as `get` must return it after the schema version 3 migration: with no intent digest.
 */
export function intentMigrationOldRecord(request: string, now: number): IdempotencyRecord {
  return {
    key: 'key-old',
    request_sha256: request,
    intent_sha256: null,
    state: 'started',
    owner: 'host-old',
    fencing_token: 7,
    lease_expires_at: now + 60_000,
    created_at: now - 5,
    updated_at: now,
    result: null,
  };
}

/** What `checkIntentDigestMigration` is told about the migrated store. */
export interface IntentDigestMigrationExpectations {
  /** The request digest of `key-old` (`intentMigrationOldRecord`) and of the record this check claims. */
  request: string;
  /** The intent digest this check claims `key-new` with. */
  intent: string;
  /** The digest carried by the key `intent-<intentOld>` of an unresolved record written before the migration. */
  intentOld: string;
  /** The store clock's reading: `key-old` was written around it, and a claim now gets it + 1 as its token. */
  now: number;
}

/**
 * The contract of the schema version 3 migration (the intent digest), for a store opened over a
 * database written before it that held `key-old` (`intentMigrationOldRecord`), an unresolved record under
 * `intent-<intentOld>`, a released one under `intent-3333…` and an unresolved one under
 * `intent-GGGG…` (a key that only looks like an intent key): the old record reads back without an
 * intent digest; a new claim stores its own; `findUnresolved` finds both by request and only the
 * new one by its intent; the unresolved record under an intent key got the digest its key carries,
 * the resolved one and the look-alike none. Throws (node:assert) on the first difference.
 */
export async function checkIntentDigestMigration(store: IdempotencyStore, expected: IntentDigestMigrationExpectations): Promise<void> {
  const { request, intent, intentOld, now } = expected;
  const oldRecord = intentMigrationOldRecord(request, now);
  const newToken = now + 1;
  assert.deepEqual(await store.get('key-old'), oldRecord);
  await recordIn(store, 'key-new', 'unknown', request, intent);
  assert.equal((await store.get('key-new'))?.intent_sha256, intent);
  const byRequest = await store.findUnresolved?.({ request_sha256: request, limit: 10 });
  assert.deepEqual(
    byRequest?.map((record) => [record.key, record.fencing_token, record.intent_sha256]),
    [
      ['key-old', 7, null],
      ['key-new', newToken, intent],
    ],
  );
  assert.deepEqual(byRequest?.[0], oldRecord);
  // By intent: only the record claimed with it, never the old one (it has none).
  assert.deepEqual((await store.findUnresolved?.({ intent_sha256: intent, limit: 10 }))?.map((record) => record.key), ['key-new']);
  // The unresolved record under an intent key was given the digest its key carries.
  assert.deepEqual((await store.findUnresolved?.({ intent_sha256: intentOld, limit: 10 }))?.map((record) => record.key), [`intent-${intentOld}`]);
  assert.equal((await store.get(`intent-${'3'.repeat(64)}`))?.intent_sha256, null);
  assert.equal((await store.get(`intent-${'G'.repeat(64)}`))?.intent_sha256, null);
}
