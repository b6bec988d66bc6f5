// The watch must not change what the dispatcher sees: it tells a store's outage from its refusal of
// an input (StoreInputError, a bug) by the error itself, and a store without `findCompleted` from one
// with it by the method's presence.
import { createMemoryStores, StoreInputError, systemClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from './run-scenario.js';
import { watchStores } from './watch-stores.js';

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

  it('a call unanswered for answerWithinMs is a failure, even when its answer comes later; verifyChain is not timed', async () => {
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
