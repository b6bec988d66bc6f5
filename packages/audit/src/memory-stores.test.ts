import { createDigester, type Digester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { findCompletedConformanceCases, findUnresolvedConformanceCases, storeConformanceCases, type StoreFactory } from './store-conformance.js';
import { createMemoryStores, type MemoryStoresOptions } from './memory-stores.js';
import { StoreInputError } from './store-input-error.js';

describe('in-memory stores: conformance', () => {
  const cases = storeConformanceCases(async ({ clock, digester, logId }) => {
    const stores = createMemoryStores({ clock, digester, ...(logId === undefined ? {} : { logId }) });
    return { ...stores, close: async () => {} };
  });
  for (const testCase of cases) it(testCase.name, testCase.run);
  const lookupFactory: StoreFactory = async ({ clock, digester }) => ({ ...createMemoryStores({ clock, digester }), close: async () => {} });
  for (const testCase of [...findUnresolvedConformanceCases(lookupFactory), ...findCompletedConformanceCases(lookupFactory)]) it(testCase.name, testCase.run);
});

describe('in-memory stores: options', () => {
  it('refuses a malformed log identity when the stores are created', () => {
    const clock = new ManualClock(0);
    const digester = createDigester();
    for (const logId of ['', 'x'.repeat(257), 'nul\u0000', 'lone \uD800', 7 as unknown as string]) {
      const error = captured(() => createMemoryStores({ clock, digester, logId }));
      expect(StoreInputError.isInstance(error) && error.field, JSON.stringify(logId)).toBe('logId');
    }
  });

  it('refuses a malformed maxBodyBytes when the stores are created, not as a refusal of every append', async () => {
    const clock = new ManualClock(0);
    const digester = createDigester();
    for (const maxBodyBytes of [Number.NaN, -1, 0, 4095, 4096.5, Number.POSITIVE_INFINITY, 64 * 1024 * 1024 + 1, '1048576' as unknown as number]) {
      const error = captured(() => createMemoryStores({ clock, digester, maxBodyBytes }));
      expect(StoreInputError.isInstance(error) && error.field, String(maxBodyBytes)).toBe('maxBodyBytes');
    }
    const smallest = createMemoryStores({ clock, digester, maxBodyBytes: 4096 });
    await expect(smallest.auditLog.append({ kind: 'k', call_id: null, operation_id: null, idempotency_key: null, body: { text: 'x'.repeat(4085) } })).resolves.toMatchObject({ sequence: 1 });
    await expect(smallest.auditLog.append({ kind: 'k', call_id: null, operation_id: null, idempotency_key: null, body: { text: 'x'.repeat(4086) } })).rejects.toThrow(StoreInputError);
  });
});

describe('in-memory stores: clock and digester (configuration review)', () => {
  it('refuses missing options, or a missing clock or digester, with StoreInputError naming it instead of a raw destructuring error', () => {
    const clock = new ManualClock(0);
    const digester = createDigester();
    const cases: [unknown, string][] = [
      [undefined, 'options'],
      [null, 'options'],
      ['stores', 'options'],
      [{ digester }, 'clock'],
      [{ clock }, 'digester'],
      [{}, 'clock'],
    ];
    for (const [options, field] of cases) {
      const error = captured(() => createMemoryStores(options as MemoryStoresOptions));
      expect(StoreInputError.isInstance(error) && error.field, JSON.stringify(options)).toBe(field);
    }
  });

  it('refuses an unknown option (a misspelt logID), naming it, instead of dropping it', () => {
    const error = captured(() => createMemoryStores({ clock: new ManualClock(0), digester: createDigester(), logID: 'log-1' } as unknown as MemoryStoresOptions));
    expect(StoreInputError.isInstance(error) && error.field).toBe('logID');
  });

  it('refuses a clock without now() and a digester without what the chain needs, when the stores are created', () => {
    const clock = new ManualClock(0);
    const digester = createDigester();
    const cases: [Record<string, unknown>, string][] = [
      [{ clock: {}, digester }, 'clock'],
      [{ clock: { now: 5 }, digester }, 'clock'],
      [{ clock: null, digester }, 'clock'],
      [{ clock, digester: {} }, 'digester'],
      [{ clock, digester: null }, 'digester'],
      [{ clock, digester: { ...digester, digestTagged: undefined } }, 'digester'],
      [{ clock, digester: { ...digester, digestText: 'x' } }, 'digester'],
      [{ clock, digester: { ...digester, keyed: 'yes' } }, 'digester'],
    ];
    for (const [options, field] of cases) {
      const error = captured(() => createMemoryStores(options as unknown as MemoryStoresOptions));
      expect(StoreInputError.isInstance(error) && error.field, JSON.stringify(options)).toBe(field);
    }
    expect(() => createMemoryStores({ clock: {} as ManualClock, digester })).toThrow(/^clock: must be a clock/);
  });

  it('reports whether its chain is keyed, from the digester it was given', () => {
    const clock = new ManualClock(0);
    expect(createMemoryStores({ clock, digester: createDigester() }).auditLog.keyed).toBe(false);
    expect(createMemoryStores({ clock, digester: createDigester({ key: new Uint8Array(32).fill(1) }) }).auditLog.keyed).toBe(true);
  });

});

describe('in-memory stores: the stored head', () => {
  it('never returns a head row of sequence 0 (which the durable stores read as an empty log) as verified', async () => {
    const stores = createMemoryStores({ clock: new ManualClock(Date.UTC(2026, 6, 19)), digester: createDigester() });
    await stores.tamper.writeHead({ sequence: 0, entry_hash: 'f'.repeat(64) });
    expect(await stores.auditLog.verifyChain()).toEqual({ ok: false, position: 1, problem: 'edited', detail: 'head_malformed' });
    await stores.tamper.writeHead(null);
    expect(await stores.auditLog.verifyChain()).toEqual({ ok: true, checked: 0, head: null, anchored: false });
  });
});

function captured(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
