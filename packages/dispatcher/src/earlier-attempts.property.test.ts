// Earlier attempts of one request under many interleavings (spec 000: OUTCOME_UNKNOWN recovers by
// `query_status`, never by a second write). Turns with live approvals under old and new keys,
// expired approvals and none run at the same time against an in-memory store whose every call is
// delayed by a random number of microtasks and timer turns (and, in the first property, against a
// clock that jumps now and then), so store calls of different turns interleave in many orders.
// The last property mixes hosts that ask for approval with hosts that write under the intent key
// (a tool's approval mode switched during a rolling deploy).
import type { IdempotencyRecord, IdempotencyStore } from '@toolseal/audit';
import type { JsonObject } from '@toolseal/contracts';
import { ERROR_CATALOG } from '@toolseal/errors';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { Approval } from './approval.js';
import type { DispatchedCall } from './dispatch-types.js';
import type { HandlerInput, HandlerOutcome } from './dispatcher-tool.js';

const context = { principal: CEDAR_DRAFTER };
const KEYS = ['k1', 'k2', 'k3'] as const;
type Key = (typeof KEYS)[number];
/** What the downstream does for a write under a key. */
type Behavior = 'succeed' | 'slow_succeed' | 'commit_then_hang' | 'hang' | 'rate_limit';
/** An earlier attempt, made before the turns under test: straight in the store, or by a dispatch. */
type HistoryKind = 'released' | 'claimed' | 'started' | 'unknown' | 'unknown_committed' | 'dispatched';

/** A small seeded generator (mulberry32): the delays of one run follow from fast-check's seed. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Waits a random number of microtask turns, and now and then a timer turn. */
async function jitter(random: () => number): Promise<void> {
  const ticks = Math.floor(random() * 6);
  for (let tick = 0; tick < ticks; tick += 1) await Promise.resolve();
  if (random() < 0.15) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
}

/**
 * Replaces every method of the host's idempotency store with one that waits a random while before
 * and after the real (atomic) call, and now and then moves the clock on (`clockJumps`). Returns the
 * real store, which the checks read without delay.
 */
function delayStore(host: TestHost, random: () => number, clockJumps: boolean): IdempotencyStore {
  const store = host.stores.idempotencyStore;
  const real: IdempotencyStore = { ...store };
  const delayed = <I, O>(call: (input: I) => Promise<O>) => async (input: I): Promise<O> => {
    await jitter(random);
    if (clockJumps && random() < 0.03) host.clock.advance(random() < 0.5 ? 1 + Math.floor(random() * 20) : 1_000 + Math.floor(random() * 60_000));
    const answer = await call(input);
    await jitter(random);
    return answer;
  };
  store.claim = delayed(real.claim);
  store.markStarted = delayed(real.markStarted);
  store.complete = delayed(real.complete);
  store.release = delayed(real.release);
  store.markUnknown = delayed(real.markUnknown);
  store.reconcile = delayed(real.reconcile);
  store.get = delayed(real.get);
  const findUnresolved = real.findUnresolved;
  if (findUnresolved !== undefined) store.findUnresolved = delayed(findUnresolved);
  const findCompleted = real.findCompleted;
  if (findCompleted !== undefined) store.findCompleted = delayed(findCompleted);
  return real;
}

function approval(host: TestHost, digest: Approval['request_sha256'], key: Key, live: boolean): Approval {
  return { request_sha256: digest, tool_name: 'create_refund_draft', idempotency_key: key, approved_by: 'supervisor-1', expires_at: live ? host.clock.now() + 60_000 : host.clock.now() - 1 };
}

/**
 * The refund write's handler, per key: `behaviors` decides what the downstream does. Before it
 * acts, it records a violation when another attempt of the same request has started and is not
 * resolved (`started` or `unknown` in the real store, read at that very moment): the invariant.
 */
function instrumentHandler(
  host: TestHost,
  real: IdempotencyStore,
  digest: Approval['request_sha256'],
  behaviors: Partial<Record<Key, Behavior>>,
  random: () => number,
  violations: string[],
): void {
  const write = host.impl.create_refund_draft;
  host.impl.create_refund_draft = async (input: HandlerInput): Promise<HandlerOutcome> => {
    const key = input.idempotency_key as Key;
    // The in-memory store reads synchronously when called: this is the state as the handler starts.
    const unresolved = real.findUnresolved?.({ request_sha256: digest, limit: 100 }) ?? Promise.resolve([]);
    const others = (await unresolved).filter((record: IdempotencyRecord) => record.key !== key && (record.state === 'started' || record.state === 'unknown'));
    if (others.length > 0) violations.push(`${key} started while ${others.map((record) => `${record.key} was ${record.state}`).join(', ')}`);
    switch (behaviors[key] ?? 'succeed') {
      case 'succeed':
        return write(input);
      case 'slow_succeed':
        await jitter(random);
        return write(input);
      case 'commit_then_hang':
        void write(input);
        return new Promise<never>(() => undefined);
      case 'hang':
        return new Promise<never>(() => undefined);
      case 'rate_limit':
        return { kind: 'error', code: 'RATE_LIMIT', retryAfterMs: 1_000 };
    }
  };
}

/** An earlier attempt under `key`, made straight in the store (as another host would leave it) or by a dispatch. */
async function makeHistory(host: TestHost, real: IdempotencyStore, digest: Approval['request_sha256'], key: Key, kind: HistoryKind): Promise<void> {
  if (kind === 'dispatched') {
    await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(host, digest, key, true)] });
    return;
  }
  const claim = await real.claim({ key, request_sha256: digest, owner: 'earlier-host', lease_ms: 30_000 });
  if (claim.kind !== 'claimed') return;
  const fence = { key, fencing_token: claim.fencing_token };
  if (kind === 'released') await real.release(fence);
  if (kind === 'claimed') return;
  if (kind === 'started' || kind === 'unknown' || kind === 'unknown_committed') await real.markStarted({ ...fence, lease_ms: 30_000 });
  if (kind === 'unknown' || kind === 'unknown_committed') await real.markUnknown(fence);
  if (kind === 'unknown_committed') {
    host.drafts.set(key, { draft_ref: `DRAFT-${key.toUpperCase()}`, order_ref: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A' } satisfies JsonObject);
  }
}

function expectCatalogued(result: DispatchedCall): void {
  const { model_result: modelResult } = result.sealed;
  if (modelResult.error === null) {
    expect(modelResult.status).toBe('succeeded');
    return;
  }
  const code = modelResult.error.code as keyof typeof ERROR_CATALOG;
  expect(ERROR_CATALOG[code].status).toBe(modelResult.status);
}

const keyArbitrary = fc.constantFrom(...KEYS);
const behaviorArbitrary = fc.constantFrom<Behavior>('succeed', 'slow_succeed', 'commit_then_hang', 'hang', 'rate_limit');

let digest: Approval['request_sha256'];
/** The refund's intent digest (tenant, subject, tool, arguments), as the dispatcher computes it. */
let intent: Approval['request_sha256'];

beforeAll(async () => {
  // Every test host has the same digester key and contracts: one request digest for all of them.
  const host = createTestHost();
  const [preview] = (await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).results;
  const request = preview?.approval_request?.request_sha256;
  if (request === undefined) throw new Error('no approval preview');
  digest = request;
  intent = host.digester.digestTagged('toolseal.dispatcher.intent_key.v1', {
    tenant_id: CEDAR_DRAFTER.tenant_id,
    subject_id: CEDAR_DRAFTER.subject_id,
    tool_name: 'create_refund_draft',
    arguments: BASELINE_REFUND,
  });
});

describe('earlier attempts under concurrent turns', () => {
  it('for one request_sha256, no handler starts while another attempt of it has started and is not resolved (started or unknown)', async () => {
    const step = fc.record({
      key: keyArbitrary,
      kind: fc.constantFrom<HistoryKind>('released', 'claimed', 'started', 'unknown', 'unknown_committed', 'dispatched'),
      advanceMs: fc.constantFrom(0, 10, 1_000, 31_000),
    });
    const turn = fc.record({
      live: fc.option(keyArbitrary, { nil: null }),
      expired: fc.option(keyArbitrary, { nil: null }),
    });
    const turns = fc.array(turn, { minLength: 2, maxLength: 5 });
    const anyScenario = fc.record({ history: fc.array(step, { maxLength: 3 }), turns });
    // Nothing unresolved yet, or only a claim: new writes may start, and race one another.
    const openStep = fc.record({ key: keyArbitrary, kind: fc.constantFrom<HistoryKind>('released', 'claimed', 'dispatched'), advanceMs: fc.constantFrom(0, 31_000) });
    const openScenario = fc.record({ history: fc.array(openStep, { maxLength: 2 }), turns });
    // The review's pattern, drawn as often as each of the others: a released attempt (oldest), then one
    // whose outcome is unknown; then a turn that presents the released attempt's expired approval
    // and one with a live approval under a third key, among others, in any order.
    const reviewScenario = fc
      .record({
        unknown: fc.constantFrom<HistoryKind>('unknown', 'unknown_committed'),
        advanceMs: fc.constantFrom(0, 1_000),
        others: fc.array(turn, { maxLength: 2 }),
        order: fc.boolean(),
      })
      .map(({ unknown, advanceMs, others, order }) => ({
        history: [
          { key: 'k1' as Key, kind: 'released' as HistoryKind, advanceMs },
          { key: 'k2' as Key, kind: unknown, advanceMs: 31_000 },
        ],
        turns: [
          ...(order ? [] : others),
          { live: null, expired: 'k1' as Key },
          { live: 'k3' as Key, expired: null },
          ...(order ? others : []),
        ],
      }));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(anyScenario, openScenario, reviewScenario),
        fc.record({ k1: behaviorArbitrary, k2: behaviorArbitrary, k3: behaviorArbitrary }),
        fc.integer(),
        fc.boolean(),
        async ({ history: earlier, turns }, behaviors, seed, clockJumps) => {
          const host = createTestHost({ deadlines: { create_refund_draft: 20 } });
          const random = randomSource(seed);
          const real = delayStore(host, random, clockJumps);
          const violations: string[] = [];
          instrumentHandler(host, real, digest, behaviors, random, violations);
          for (const { key, kind, advanceMs } of earlier) {
            await makeHistory(host, real, digest, key, kind);
            host.clock.advance(advanceMs);
          }
          const results = await Promise.all(
            turns.map(async ({ live, expired }) => {
              await jitter(random);
              const approvals: Approval[] = [];
              if (expired !== null) approvals.push(approval(host, digest, expired, false));
              if (live !== null) approvals.push(approval(host, digest, live, true));
              return host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals });
            }),
          );
          expect(violations).toEqual([]);
          for (const result of results.flatMap((dispatched) => dispatched.results)) expectCatalogued(result);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a call without a live approval never turns a live approval away: it claims no key under which nothing ran', async () => {
    const other = fc.oneof(
      fc.constant<Key | null>(null),
      keyArbitrary.map((key): Key | null => key),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(other, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer(),
        fc.boolean(),
        async (probes, livePosition, seed, startedElsewhere) => {
          const host = createTestHost();
          const random = randomSource(seed);
          const real = delayStore(host, random, false);
          // One live approval under k1; every other turn presents an expired approval (under k1
          // itself or another key) or none. Nothing ran before: the live one must write, once.
          // With `startedElsewhere`, another host's write under k1 has started (live lease) and
          // declares, at a random moment while the probes read and look up, that it did nothing
          // (the review's gap between a read and a claim); the live approval comes after that.
          let freed: Promise<void> = Promise.resolve();
          if (startedElsewhere) {
            const claim = await real.claim({ key: 'k1', request_sha256: digest, owner: 'earlier-host', lease_ms: 30_000 });
            if (claim.kind !== 'claimed') throw new Error('k1 was not claimed');
            const fence = { key: 'k1', fencing_token: claim.fencing_token };
            expect((await real.markStarted({ ...fence, lease_ms: 30_000 })).ok).toBe(true);
            freed = (async () => {
              await jitter(random);
              await jitter(random);
              expect((await real.release({ ...fence, handler_declared_not_started: true })).ok).toBe(true);
            })();
          }
          const live = approval(host, digest, 'k1', true);
          const turns: (Approval | null)[] = probes.map((key) => (key === null ? null : approval(host, digest, key, false)));
          turns.splice(Math.min(livePosition, turns.length), 0, live);
          const results = await Promise.all(
            turns.map(async (presented) => {
              if (presented === live) await freed;
              await jitter(random);
              const turnResult = await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], {
                ...context,
                approvals: presented === null ? [] : [presented],
              });
              return { presented, result: turnResult.results[0] };
            }),
          );
          for (const { presented, result } of results) {
            if (result === undefined) throw new Error('no result');
            if (presented === live) {
              expect(result.gate).toBe('sealed');
              expect(result.sealed.model_result.status).toBe('succeeded');
            } else {
              // Asked for an approval, told the write is in progress, or given its replay.
              const answer = result.sealed.model_result.error?.code ?? result.sealed.model_result.execution.delivery;
              expect(['APPROVAL_REQUIRED', 'APPROVAL_INVALID', 'OUTCOME_UNKNOWN', 'local_replay']).toContain(answer);
            }
          }
          expect(host.calls['create_refund_draft']).toBe(1);
          expect((await host.stores.idempotencyStore.get('k1'))?.state).toBe('completed');
        },
      ),
      { numRuns: 150 },
    );
  });

  it("hosts of both approval modes on one store (a rolling switch to 'none'): an intent-key write never starts once the intent completed or while an attempt of it is started or unknown", async () => {
    const hostTurn = fc.record({ host: fc.constantFrom<'approving' | 'intent'>('approving', 'intent'), live: fc.option(keyArbitrary, { nil: null }) });
    const step = fc.record({ key: keyArbitrary, kind: fc.constantFrom<HistoryKind>('released', 'claimed', 'started', 'unknown', 'dispatched'), advanceMs: fc.constantFrom(0, 31_000) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 2 }),
        fc.array(hostTurn, { minLength: 2, maxLength: 5 }),
        fc.record({ k1: behaviorArbitrary, k2: behaviorArbitrary, k3: behaviorArbitrary }),
        fc.integer(),
        async (earlier, turns, behaviors, seed) => {
          const approving = createTestHost({ deadlines: { create_refund_draft: 20 } });
          const random = randomSource(seed);
          const real = delayStore(approving, random, false);
          const intentHost = createTestHost({
            clock: approving.clock,
            options: { stores: approving.stores },
            deadlines: { create_refund_draft: 20 },
            tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
          });
          const violations: string[] = [];
          instrumentHandler(approving, real, digest, behaviors, random, violations);
          instrumentHandler(intentHost, real, digest, behaviors, random, violations);
          // The intent-key write's own rule: no completed attempt of its intent under another key.
          const checked = intentHost.impl.create_refund_draft;
          intentHost.impl.create_refund_draft = async (input: HandlerInput): Promise<HandlerOutcome> => {
            const completed = (await (real.findCompleted?.({ intent_sha256: intent, limit: 100 }) ?? Promise.resolve([]))).filter(
              (record: IdempotencyRecord) => record.key !== input.idempotency_key,
            );
            if (completed.length > 0) violations.push(`${String(input.idempotency_key)} started after ${completed.map((record) => record.key).join(', ')} completed`);
            return checked(input);
          };
          for (const { key, kind, advanceMs } of earlier) {
            if (kind === 'dispatched') await makeHistory(approving, real, digest, key, kind);
            else await makeHistoryWithIntent(real, key, kind);
            approving.clock.advance(advanceMs);
          }
          const results = await Promise.all(
            turns.map(async ({ host, live }) => {
              await jitter(random);
              const approvals = host === 'approving' && live !== null ? [approval(approving, digest, live, true)] : [];
              return (host === 'approving' ? approving : intentHost).dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals });
            }),
          );
          expect(violations).toEqual([]);
          for (const result of results.flatMap((dispatched) => dispatched.results)) expectCatalogued(result);
        },
      ),
      { numRuns: 150 },
    );
  });
});

/** `makeHistory` straight in the store, with the intent digest a dispatcher's claim carries. */
async function makeHistoryWithIntent(real: IdempotencyStore, key: Key, kind: HistoryKind): Promise<void> {
  const claim = await real.claim({ key, request_sha256: digest, intent_sha256: intent, owner: 'earlier-host', lease_ms: 30_000 });
  if (claim.kind !== 'claimed') return;
  const fence = { key, fencing_token: claim.fencing_token };
  if (kind === 'released') await real.release(fence);
  if (kind === 'started' || kind === 'unknown') await real.markStarted({ ...fence, lease_ms: 30_000 });
  if (kind === 'unknown') await real.markUnknown(fence);
}
