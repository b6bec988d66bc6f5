import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { storeConformanceCases } from './store-conformance.js';
import { createMemoryStores } from './memory-stores.js';
import { StoreInputError } from './store-input-error.js';

describe('in-memory stores: conformance', () => {
  const cases = storeConformanceCases(async ({ clock, digester, logId }) => {
    const stores = createMemoryStores({ clock, digester, ...(logId === undefined ? {} : { logId }) });
    return { ...stores, close: async () => {} };
  });
  for (const testCase of cases) it(testCase.name, testCase.run);
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
});

function captured(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
