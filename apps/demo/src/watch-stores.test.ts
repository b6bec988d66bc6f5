// The watch must not change what the dispatcher sees: it tells a store's outage from its refusal of
// an input (StoreInputError, a bug) by the error itself, and a store without `findCompleted` from one
// with it by the method's presence.
import { createMemoryStores, StoreInputError, systemClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from './run-scenario.js';
import { VERIFY_MS_PER_ENTRY, watchStores } from './watch-stores.js';

const memoryStores = () => createMemoryStores({ clock: systemClock, digester: createDigester({ key: DEMO_KEY }) });
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('watchStores', () => {
  it('passes answers and the very error objects through, and keeps the first failure', async () => {
    const stores = memoryStores();
    const watched = watchStores(stores, { answerWithinMs: 1_000 });
    expect(await watched.stores.idempotencyStore.get('absent')).toBeUndefined();
    expect(await watched.stores.auditLog.head()).toBeNull();
    expect(watched.failure()).toBeNull();

    // Replaced after the watch began: each call reaches the store's method of the moment.
    const refusal = new StoreInputError('key', 'must be 1 to 256 characters');
    stores.idempotencyStore.get = () => Promise.reject(refusal);
    stores.auditLog.head = () => Promise.reject(new Error('later'));
    await expect(watched.stores.idempotencyStore.get('')).rejects.toBe(refusal);
    await expect(watched.stores.auditLog.head()).rejects.toThrow('later');
    expect(watched.failure()).toEqual({ operation: 'idempotencyStore.get', message: 'idempotencyStore.get: key: must be 1 to 256 characters' });
  });

  it('keeps which optional methods a store has, and its other properties', () => {
    const stores = memoryStores();
    const watched = watchStores(stores, { answerWithinMs: 1_000 });
    expect(typeof watched.stores.idempotencyStore.findCompleted).toBe(typeof stores.idempotencyStore.findCompleted);
    expect(typeof watched.stores.idempotencyStore.findUnresolved).toBe(typeof stores.idempotencyStore.findUnresolved);
    expect(watched.stores.auditLog.keyed).toBe(stores.auditLog.keyed);

    const { findCompleted: _dropped, ...withoutFindCompleted } = stores.idempotencyStore;
    const bare = watchStores({ auditLog: stores.auditLog, idempotencyStore: withoutFindCompleted }, { answerWithinMs: 1_000 });
    expect('findCompleted' in bare.stores.idempotencyStore).toBe(false);
    expect(bare.stores.idempotencyStore.findCompleted).toBeUndefined();
  });

  it('gives verifyChain answerWithinMs and VERIFY_MS_PER_ENTRY for each entry seen, then stops waiting for it', async () => {
    const stores = memoryStores();
    const watched = watchStores(stores, { answerWithinMs: 20 });
    for (let index = 0; index < 3; index++) {
      await watched.stores.auditLog.append({ kind: 'note', call_id: null, operation_id: null, idempotency_key: null, body: { index } });
    }
    // A log of 3 entries: 20 + 3 ms. One that answers in 60 ms is a failure, and the demo stops waiting.
    stores.auditLog.verifyChain = () => new Promise(() => undefined);
    const started = Date.now();
    await expect(watched.stores.auditLog.verifyChain()).rejects.toThrow(`auditLog.verifyChain did not answer within ${20 + 3 * VERIFY_MS_PER_ENTRY} ms`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(watched.failure()).toEqual({ operation: 'auditLog.verifyChain', message: `auditLog.verifyChain did not answer within ${20 + 3 * VERIFY_MS_PER_ENTRY} ms` });
  });

  it('counts the entries a head answer reports (a log that holds earlier runs)', async () => {
    const stores = memoryStores();
    const watched = watchStores(stores, { answerWithinMs: 20 });
    stores.auditLog.head = async () => ({ sequence: 5_000, entry_hash: '0'.repeat(64) });
    await watched.stores.auditLog.head();
    stores.auditLog.verifyChain = () => new Promise(() => undefined);
    await expect(watched.stores.auditLog.verifyChain()).rejects.toThrow(`within ${20 + 5_000 * VERIFY_MS_PER_ENTRY} ms`);
  });

  it('a call unanswered for answerWithinMs is a failure, even when its answer comes later; verifyChain has more time', async () => {
    const stores = memoryStores();
    const verifyChain = stores.auditLog.verifyChain.bind(stores.auditLog);
    stores.auditLog.verifyChain = async (options) => {
      await delay(60);
      return verifyChain(options);
    };
    const get = stores.idempotencyStore.get.bind(stores.idempotencyStore);
    stores.idempotencyStore.get = async (key) => {
      await delay(60);
      return get(key);
    };
    const watched = watchStores(stores, { answerWithinMs: 20 });
    // A head of 1,000 entries gives the verification 1,020 ms: its 60 ms are no failure.
    const head = stores.auditLog.head.bind(stores.auditLog);
    stores.auditLog.head = async () => ({ sequence: 1_000, entry_hash: '0'.repeat(64) });
    await watched.stores.auditLog.head();
    stores.auditLog.head = head;
    expect((await watched.stores.auditLog.verifyChain()).ok).toBe(true);
    expect(watched.failure()).toBeNull();
    expect(await watched.stores.idempotencyStore.get('absent')).toBeUndefined();
    expect(watched.failure()).toEqual({ operation: 'idempotencyStore.get', message: 'idempotencyStore.get did not answer within 20 ms' });
  });

  it('a call still waiting when asked is reported as unanswered', () => {
    const stores = memoryStores();
    stores.auditLog.head = () => new Promise(() => undefined);
    const watched = watchStores(stores, { answerWithinMs: 60_000 });
    void watched.stores.auditLog.head();
    expect(watched.failure()).toEqual({ operation: 'auditLog.head', message: 'auditLog.head did not answer within 60000 ms' });
  });
});
