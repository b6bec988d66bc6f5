import { createDigester } from '@toolseal/digests';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import type { ClaimOutcome, FencedOutcome } from './idempotency-store.js';
import { createMemoryStores } from './memory-stores.js';
import { checkIdempotencyOperation, planIdempotencyTransition } from './plan-idempotency-transition.js';
import { StoreInputError } from './store-input-error.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);

// Fenced writes name a token relative to the key's latest one (-2: stale, 0: current, 1: never
// issued yet): tokens are seeded from the clock, so fixed small numbers would never match.
const tokenOffset = fc.integer({ min: -2, max: 1 });
const operation = fc.oneof(
  fc.record({ type: fc.constant('claim' as const), key: fc.constantFrom('k1', 'k2'), request: fc.constantFrom(A, A, A, B), lease: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ type: fc.constant('markStarted' as const), key: fc.constantFrom('k1', 'k2'), offset: tokenOffset, lease: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ type: fc.constant('complete' as const), key: fc.constantFrom('k1', 'k2'), offset: tokenOffset, note: fc.nat(9) }),
  fc.record({ type: fc.constant('release' as const), key: fc.constantFrom('k1', 'k2'), offset: tokenOffset, declared: fc.boolean() }),
  fc.record({ type: fc.constant('markUnknown' as const), key: fc.constantFrom('k1', 'k2'), offset: tokenOffset }),
  fc.record({ type: fc.constant('reconcile' as const), key: fc.constantFrom('k1', 'k2'), request: fc.constantFrom(A, B), note: fc.nat(9) }),
  fc.record({ type: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 120 }) }),
  fc.record({ type: fc.constant('purge' as const), olderThan: fc.constantFrom(0, 0, 50) }),
  // The clock steps back (an NTP step, a resumed VM, another host's skew), by more than the
  // retention too: tokens must not repeat after a purge all the same.
  fc.record({ type: fc.constant('stepBack' as const), by: fc.integer({ min: 1, max: 200 }) }),
);

describe('the idempotency state machine (property, in-memory store)', () => {
  it('never lets a handler start twice (unless it declared nothing executed), never changes a completed result, never revives an unknown record, never repeats a token (purges included)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 60 }), async (operations) => {
        const clock = new ManualClock(1_000_000);
        const { idempotencyStore: store } = createMemoryStores({ clock, digester: createDigester() });
        const starts = new Map<string, number>();
        const completedJson = new Map<string, string>();
        const unknownSeen = new Set<string>();
        const lastToken = new Map<string, number>();
        const issued = new Map<string, Set<number>>();
        for (const step of operations) {
          if (step.type === 'advance') {
            clock.advance(step.by);
            continue;
          }
          if (step.type === 'stepBack') {
            clock.set(clock.now() - step.by);
            continue;
          }
          if (step.type === 'purge') {
            await store.purgeExpired({ older_than_ms: step.olderThan });
            for (const key of ['k1', 'k2']) {
              // Retention ended the key's story: what it held no longer constrains a new record.
              if ((await store.get(key)) !== undefined) continue;
              starts.delete(key);
              completedJson.delete(key);
              unknownSeen.delete(key);
            }
            continue;
          }
          const token = 'offset' in step ? Math.max(1, (lastToken.get(step.key) ?? 1) + step.offset) : 0;
          let outcome: ClaimOutcome | FencedOutcome;
          switch (step.type) {
            case 'claim': {
              const before = await store.get(step.key);
              outcome = await store.claim({ key: step.key, request_sha256: step.request, owner: 'o', lease_ms: step.lease });
              if (before !== undefined && step.request !== before.request_sha256) {
                // Another request may take a key only where nothing ran and nobody holds it.
                const free = before.state === 'released' || (before.state === 'claimed' && clock.now() >= before.lease_expires_at);
                expect(outcome.kind).toBe(free ? 'claimed' : 'conflict');
              }
              if (outcome.kind === 'claimed') {
                expect(outcome.fencing_token).toBeGreaterThan(lastToken.get(step.key) ?? 0);
                const tokens = issued.get(step.key) ?? new Set<number>();
                expect(tokens.has(outcome.fencing_token), 'a token is never handed out twice for a key').toBe(false);
                tokens.add(outcome.fencing_token);
                issued.set(step.key, tokens);
                lastToken.set(step.key, outcome.fencing_token);
                expect(starts.get(step.key) ?? 0, 'no new claim once a handler started').toBe(0);
              }
              if (unknownSeen.has(step.key) && outcome.kind !== 'conflict') {
                expect(['outcome_unknown', 'completed']).toContain(outcome.kind);
              }
              if (outcome.kind === 'outcome_unknown') unknownSeen.add(step.key);
              if (outcome.kind === 'completed') expect(outcome.result.sealed_json).toBe(completedJson.get(step.key));
              if (outcome.kind === 'claimed') expect((await store.get(step.key))?.request_sha256).toBe(step.request);
              break;
            }
            case 'markStarted':
              outcome = await store.markStarted({ key: step.key, fencing_token: token, lease_ms: step.lease });
              if (outcome.ok) starts.set(step.key, (starts.get(step.key) ?? 0) + 1);
              expect(starts.get(step.key) ?? 0).toBeLessThanOrEqual(1);
              break;
            case 'complete':
            case 'reconcile': {
              const result = { sealed_json: `{"note":${step.note}}`, receipt: null };
              outcome =
                step.type === 'complete'
                  ? await store.complete({ key: step.key, fencing_token: token, result })
                  : await store.reconcile({ key: step.key, request_sha256: step.request, result });
              if (outcome.ok) {
                expect(completedJson.has(step.key), 'a result is stored once').toBe(false);
                completedJson.set(step.key, result.sealed_json);
                if (step.type === 'reconcile') expect(unknownSeen.has(step.key), 'only an unknown record reconciles').toBe(true);
              }
              break;
            }
            case 'release': {
              const before = await store.get(step.key);
              outcome = await store.release({ key: step.key, fencing_token: token, handler_declared_not_started: step.declared });
              if (outcome.ok) {
                expect(before?.fencing_token, 'fenced').toBe(token);
                expect(before?.state === 'claimed' || (step.declared && before?.state === 'started')).toBe(true);
                expect(unknownSeen.has(step.key), 'an unknown record is never released').toBe(false);
                // The handler declared that it executed nothing: the key may run once more.
                if (before?.state === 'started') starts.set(step.key, 0);
              }
              break;
            }
            case 'markUnknown':
              outcome = await store.markUnknown({ key: step.key, fencing_token: token });
              if (outcome.ok) unknownSeen.add(step.key);
              break;
          }
          for (const key of ['k1', 'k2']) {
            const record = await store.get(key);
            if (completedJson.has(key)) expect(record?.result?.sealed_json).toBe(completedJson.get(key));
            if (record !== undefined) expect(record.result !== null).toBe(record.state === 'completed');
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('fencing tokens across purges and clock steps (property, in-memory store)', () => {
  // Rounds of: a record of one key claimed (taken over a few times), ended (released, completed or
  // left to expire), purged once past the retention, then the clock moved, back by any amount
  // (more than the retention too) or forward. Whatever the clock did, no token repeats, each
  // first claim is max(clock, every purged token) + 1, and every earlier token is fenced.
  const round = fc.record({
    takeovers: fc.integer({ min: 0, max: 3 }),
    end: fc.constantFrom('release' as const, 'complete' as const, 'expire' as const),
    olderThan: fc.constantFrom(0, 1, 50, 1_000),
    wait: fc.integer({ min: 0, max: 2_000 }),
    step: fc.integer({ min: -5_000, max: 500 }),
  });

  it('never hands a key a token twice and keeps every earlier token fenced', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(round, { minLength: 1, maxLength: 12 }), async (rounds) => {
        const clock = new ManualClock(1_000_000);
        const { idempotencyStore: store } = createMemoryStores({ clock, digester: createDigester() });
        const issued: number[] = [];
        const claim = async (owner: string) => {
          const outcome = await store.claim({ key: 'k', request_sha256: A, owner, lease_ms: 100 });
          if (outcome.kind !== 'claimed') throw new Error(`expected claimed, got ${outcome.kind}`);
          expect(issued).not.toContain(outcome.fencing_token);
          issued.push(outcome.fencing_token);
          for (const stale of issued.slice(0, -1)) {
            expect(await store.release({ key: 'k', fencing_token: stale, handler_declared_not_started: true })).toEqual({ ok: false, reason: 'fenced', state: 'claimed' });
            expect(await store.markStarted({ key: 'k', fencing_token: stale, lease_ms: 100 })).toEqual({ ok: false, reason: 'fenced', state: 'claimed' });
          }
          return outcome.fencing_token;
        };
        for (const [index, step] of rounds.entries()) {
          const floor = Math.max(0, ...issued);
          let token = await claim(`host-${index}`);
          expect(token).toBe(Math.max(clock.now(), floor) + 1);
          for (let takeover = 0; takeover < step.takeovers; takeover += 1) {
            clock.advance(100);
            token = await claim(`host-${index}-${takeover}`);
          }
          if (step.end === 'release') expect((await store.release({ key: 'k', fencing_token: token })).ok).toBe(true);
          if (step.end === 'complete') {
            expect((await store.markStarted({ key: 'k', fencing_token: token, lease_ms: 100 })).ok).toBe(true);
            expect((await store.complete({ key: 'k', fencing_token: token, result: { sealed_json: '{}', receipt: null } })).ok).toBe(true);
          }
          const record = await store.get('k');
          if (record === undefined) throw new Error('record');
          clock.set(Math.max(clock.now(), record.fencing_token, record.lease_expires_at, record.updated_at) + step.olderThan + step.wait);
          expect(await store.purgeExpired({ older_than_ms: step.olderThan })).toBe(1);
          clock.set(Math.max(0, clock.now() + step.step));
        }
        await claim('host-last');
      }),
      { numRuns: 200 },
    );
  });
});

describe('planIdempotencyTransition', () => {
  it('is pure: the same record, operation and time give the same plan, and the input record is not changed', () => {
    const input = { key: 'k', request_sha256: A, owner: 'o', lease_ms: 10 };
    const first = planIdempotencyTransition(undefined, { type: 'claim', input }, 100);
    expect(first.write?.kind).toBe('insert');
    // A key's first token is the clock reading plus one (no token floor given); a takeover adds one.
    expect(first.outcome).toEqual({ kind: 'claimed', fencing_token: 101, lease_expires_at: 110, took_over: false });
    const record = first.write?.record;
    if (record === undefined) throw new Error('record');
    const frozen = structuredClone(record);
    const takeover = planIdempotencyTransition(record, { type: 'claim', input }, 110);
    expect(takeover).toEqual(planIdempotencyTransition(record, { type: 'claim', input }, 110));
    expect(takeover.outcome).toEqual({ kind: 'claimed', fencing_token: 102, lease_expires_at: 120, took_over: true });
    expect(takeover.write).toMatchObject({ kind: 'update', expected: { fencing_token: 101, state: 'claimed' } });
    expect(record).toEqual(frozen);
  });

  it('writes the intent digest with the request digest: a new record and a takeover, never another transition', () => {
    const claim = (intent_sha256: string | null | undefined, request_sha256 = A) => ({
      type: 'claim' as const,
      input: { key: 'k', request_sha256, owner: 'o', lease_ms: 10, ...(intent_sha256 === undefined ? {} : { intent_sha256 }) },
    });
    expect(planIdempotencyTransition(undefined, claim(undefined), 100).write?.record.intent_sha256).toBeNull();
    expect(planIdempotencyTransition(undefined, claim(null), 100).write?.record.intent_sha256).toBeNull();
    const first = planIdempotencyTransition(undefined, claim(C), 100).write?.record;
    if (first === undefined) throw new Error('record');
    expect(first.intent_sha256).toBe(C);
    // A live claim answers in progress: nothing written, whatever intent the second claim carries.
    expect(planIdempotencyTransition(first, claim(B), 105).write).toBeNull();
    // A takeover writes the claim's request and intent (null when it has none).
    expect(planIdempotencyTransition(first, claim(B, B), 110).write?.record).toMatchObject({ request_sha256: B, intent_sha256: B });
    expect(planIdempotencyTransition(first, claim(undefined), 110).write?.record).toMatchObject({ request_sha256: A, intent_sha256: null });
    // Other transitions keep it.
    const started = planIdempotencyTransition(first, { type: 'markStarted', input: { key: 'k', fencing_token: first.fencing_token, lease_ms: 10 } }, 105).write?.record;
    expect(started).toMatchObject({ state: 'started', intent_sha256: C });
    if (started === undefined) throw new Error('record');
    expect(planIdempotencyTransition(started, claim(B), 200).write?.record).toMatchObject({ state: 'unknown', intent_sha256: C });
  });

  it('plans started → released as a fenced conditional write only on the handler\'s declaration', () => {
    const claimed = planIdempotencyTransition(undefined, { type: 'claim', input: { key: 'k', request_sha256: A, owner: 'o', lease_ms: 10 } }, 100).write?.record;
    if (claimed === undefined) throw new Error('record');
    const started = { ...claimed, state: 'started' as const };
    const fencing_token = claimed.fencing_token;
    expect(planIdempotencyTransition(started, { type: 'release', input: { key: 'k', fencing_token } }, 105)).toEqual({
      outcome: { ok: false, reason: 'wrong_state', state: 'started' },
      write: null,
    });
    const declared = { key: 'k', fencing_token, handler_declared_not_started: true };
    const plan = planIdempotencyTransition(started, { type: 'release', input: declared }, 105);
    expect(plan.write).toEqual({
      kind: 'update',
      expected: { fencing_token, state: 'started' },
      record: { ...started, state: 'released', updated_at: 105 },
    });
    for (const state of ['unknown', 'completed', 'released'] as const) {
      expect(planIdempotencyTransition({ ...started, state }, { type: 'release', input: declared }, 105).outcome).toEqual({ ok: false, reason: 'wrong_state', state });
    }
  });
});

describe('planIdempotencyTransition: the token floor of a first claim', () => {
  const input = { key: 'k', request_sha256: A, owner: 'o', lease_ms: 10 };
  const claim = { type: 'claim' as const, input };

  it('starts a key\'s first record one above the clock reading or the floor, whichever is higher', () => {
    // [now, floor, first token]: the floor only matters once it reaches the clock reading.
    const table: [number, number, number][] = [
      [100, 0, 101],
      [100, 99, 101],
      [100, 100, 101],
      [100, 101, 102],
      [100, 5_000, 5_001],
      [0, 0, 1],
      [8_640_000_000_000_000, 0, 8_640_000_000_000_001],
    ];
    for (const [now, floor, token] of table) {
      const plan = planIdempotencyTransition(undefined, claim, now, floor);
      expect(plan.outcome, `now ${now}, floor ${floor}`).toEqual({ kind: 'claimed', fencing_token: token, lease_expires_at: now + 10, took_over: false });
      expect(plan.write).toMatchObject({ kind: 'insert', record: { fencing_token: token, created_at: now, updated_at: now, lease_expires_at: now + 10 } });
    }
    // No floor given: 0, the clock reading plus one (callers from before the floor).
    expect(planIdempotencyTransition(undefined, claim, 100).outcome).toMatchObject({ fencing_token: 101 });
  });

  it('is above both, by exactly one, and a safe integer (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8_640_000_000_000_000 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 1 }), (now, floor) => {
        const outcome = planIdempotencyTransition(undefined, claim, now, floor).outcome;
        if (outcome.kind !== 'claimed') throw new Error('claimed');
        expect(outcome.fencing_token).toBe(Math.max(now, floor) + 1);
        expect(outcome.fencing_token).toBeGreaterThan(now);
        expect(outcome.fencing_token).toBeGreaterThan(floor);
        expect(Number.isSafeInteger(outcome.fencing_token)).toBe(true);
      }),
    );
  });

  it('leaves later claims of a record alone: they add one to its token, whatever the floor', () => {
    const first = planIdempotencyTransition(undefined, claim, 100, 0).write?.record;
    if (first === undefined) throw new Error('record');
    // A lapsed claim taken over, and a released record claimed again, under a floor far above:
    // the floor is about records the store deleted, and this one was not.
    expect(planIdempotencyTransition(first, claim, 110, 10_000).outcome).toEqual({ kind: 'claimed', fencing_token: 102, lease_expires_at: 120, took_over: true });
    const released = { ...first, state: 'released' as const };
    expect(planIdempotencyTransition(released, claim, 105, 10_000).outcome).toEqual({ kind: 'claimed', fencing_token: 102, lease_expires_at: 115, took_over: false });
    // A claim that writes nothing (live lease) answers the same under any floor.
    expect(planIdempotencyTransition(first, claim, 105, 10_000)).toEqual(planIdempotencyTransition(first, claim, 105));
  });

  it('refuses a floor no store could have stored (a broken store), even when the claim would not use it', () => {
    const first = planIdempotencyTransition(undefined, claim, 100).write?.record;
    if (first === undefined) throw new Error('record');
    for (const floor of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER, 2 ** 53, '5' as unknown as number, null as unknown as number]) {
      expect(() => planIdempotencyTransition(undefined, claim, 100, floor), String(floor)).toThrow(RangeError);
      expect(() => planIdempotencyTransition(first, claim, 110, floor), String(floor)).toThrow(RangeError);
    }
    // The highest floor accepted still gives a safe integer token.
    expect(planIdempotencyTransition(undefined, claim, 100, Number.MAX_SAFE_INTEGER - 1).outcome).toMatchObject({ fencing_token: Number.MAX_SAFE_INTEGER });
  });
});

describe('checkIdempotencyOperation', () => {
  it('copies only the known fields', () => {
    const input = { key: 'k', request_sha256: A, owner: 'o', lease_ms: 10, extra: 'ignored' };
    expect(checkIdempotencyOperation({ type: 'claim', input }).input).toEqual({ key: 'k', request_sha256: A, intent_sha256: null, owner: 'o', lease_ms: 10 });
    // The intent digest is optional: absent or null is stored as null, a digest as given.
    expect(checkIdempotencyOperation({ type: 'claim', input: { ...input, intent_sha256: null } }).input).toMatchObject({ intent_sha256: null });
    expect(checkIdempotencyOperation({ type: 'claim', input: { ...input, intent_sha256: B } }).input).toEqual({
      key: 'k',
      request_sha256: A,
      intent_sha256: B,
      owner: 'o',
      lease_ms: 10,
    });
    expect(checkIdempotencyOperation({ type: 'release', input: { key: 'k', fencing_token: 1, handler_declared_not_started: true } }).input).toEqual({
      key: 'k',
      fencing_token: 1,
      handler_declared_not_started: true,
    });
    expect(checkIdempotencyOperation({ type: 'release', input: { key: 'k', fencing_token: 1, handler_declared_not_started: false } }).input).toEqual({
      key: 'k',
      fencing_token: 1,
    });
  });

  it('rejects a missing result and an unstorable receipt', () => {
    const expectInputError = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(StoreInputError.isInstance(error)).toBe(true);
        return;
      }
      throw new Error('expected a StoreInputError');
    };
    expectInputError(() => checkIdempotencyOperation({ type: 'complete', input: { key: 'k', fencing_token: 1, result: null as never } }));
    for (const intent of ['A'.repeat(64), 'a'.repeat(63), '', 7]) {
      expectInputError(() => checkIdempotencyOperation({ type: 'claim', input: { key: 'k', request_sha256: A, intent_sha256: intent as never, owner: 'o', lease_ms: 10 } }));
    }
    expectInputError(() =>
      checkIdempotencyOperation({ type: 'reconcile', input: { key: 'k', request_sha256: A, result: { sealed_json: '{}', receipt: '' } } }),
    );
    expectInputError(() => checkIdempotencyOperation({ type: 'release', input: null as never }));
    expectInputError(() => checkIdempotencyOperation({ type: 'release', input: { key: 'k', fencing_token: 1, handler_declared_not_started: 1 as never } }));
  });
});
