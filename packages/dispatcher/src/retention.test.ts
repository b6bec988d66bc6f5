// Retention and fencing across hosts: after a purge, a key is claimed afresh, and a stalled host's
// late write (its markStarted or release still on its way) must never pass the new claim's fence,
// or the same intent runs twice (spec 000: never a second write).
import { createMemoryStores, ManualClock, type IdempotencyStore } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, START, TEST_KEY, toolCall, type TestHost } from './__fixtures__/test-host.js';

const context = { principal: CEDAR_DRAFTER };

function writeHost(clock: ManualClock, stores: TestHost['stores'] | { auditLog: TestHost['stores']['auditLog']; idempotencyStore: IdempotencyStore }, storeTimeoutMs = 10_000): TestHost {
  return createTestHost({
    clock,
    options: { stores, storeTimeoutMs },
    tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
  });
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('a key purged while its claimer stalled', () => {
  it('the review (t5): the stalled host\'s late release cannot free the next claim of the key; the intent runs once', async () => {
    const clock = new ManualClock(START);
    const shared = createMemoryStores({ clock, digester: createDigester({ key: TEST_KEY }) });
    const store = shared.idempotencyStore;
    // Host A: its markStarted never answers, and its release arrives only when let through.
    let deliverRelease: () => void = () => undefined;
    const releaseHeld = new Promise<void>((resolve) => {
      deliverRelease = resolve;
    });
    const stalledStore: IdempotencyStore = {
      claim: (input) => store.claim(input),
      markStarted: () => new Promise(() => undefined),
      complete: (input) => store.complete(input),
      release: async (input) => {
        await releaseHeld;
        return store.release(input);
      },
      markUnknown: (input) => store.markUnknown(input),
      reconcile: (input) => store.reconcile(input),
      get: (key) => store.get(key),
      purgeExpired: (input) => store.purgeExpired(input),
    };
    const hostA = writeHost(clock, { auditLog: shared.auditLog, idempotencyStore: stalledStore }, 50);
    const hostB = writeHost(clock, shared);
    const hostC = writeHost(clock, shared);
    let finishB: () => void = () => undefined;
    const writeB = hostB.impl.create_refund_draft;
    hostB.impl.create_refund_draft = async (input) => {
      await new Promise<void>((resolve) => {
        finishB = resolve;
      });
      return writeB(input);
    };

    const pendingA = hostA.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context);
    await pause(150); // A's markStarted timed out; its release is on its way
    clock.advance(31_000); // A's claim lease ran out
    expect(await store.purgeExpired({ older_than_ms: 0 })).toBe(1);
    const pendingB = hostB.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context);
    await pause(20); // B claimed the key afresh, started, and its handler is running
    expect(hostB.calls['create_refund_draft']).toBe(1);

    // A gave up waiting for its release (the store did not answer in time): TOOL_ERROR, nothing ran.
    const resultA = only(await pendingA);
    expect(resultA.sealed.model_result.error?.code).toBe('TOOL_ERROR');
    expect(hostA.calls['create_refund_draft']).toBe(0);
    deliverRelease(); // A's late release (declared: nothing started) lands on B's record
    await pause(10);
    const key = resultA.sealed.protected_audit.downstream.idempotency_key ?? '';
    const record = await store.get(key);
    expect(record?.state).toBe('started');
    expect(record?.fencing_token).toBe(START + 31_000 + 1);

    const resultC = only(await hostC.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(resultC.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
    finishB();
    expect(only(await pendingB).gate).toBe('sealed');
    const runs = [hostA, hostB, hostC].map((host) => host.calls['create_refund_draft'] ?? 0);
    expect(runs).toEqual([0, 1, 0]);
  });
});
