import { describe, it } from 'vitest';
import { storeConformanceCases } from './store-conformance.js';
import { createMemoryStores } from './memory-stores.js';

describe('in-memory stores: conformance', () => {
  const cases = storeConformanceCases(async ({ clock, digester }) => {
    const stores = createMemoryStores({ clock, digester });
    return { ...stores, close: async () => {} };
  });
  for (const testCase of cases) it(testCase.name, testCase.run);
});
