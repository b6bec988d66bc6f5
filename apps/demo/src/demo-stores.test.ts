// Whether the demo says its records outlive the process. better-sqlite3 opens an anonymous database
// for `:memory:` and for a name that is empty once trimmed (lib/database.js, `anonymous`): in memory,
// or a temporary file deleted on close. Either way nothing survives the run, so neither is durable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { afterAll, describe, expect, it } from 'vitest';
import { isDurableSqlitePath, openDemoStores, type DemoStoreOptions } from './demo-stores.js';
import { DEMO_KEY } from './run-scenario.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-demo-stores-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const common: Omit<DemoStoreOptions, 'kind'> = { clock: systemClock, digester: createDigester({ key: DEMO_KEY }) };

describe('openDemoStores: durability', () => {
  it('reports an in-memory SQLite database (:memory:) as not durable', async () => {
    const stores = await openDemoStores({ ...common, kind: 'sqlite', sqlitePath: ':memory:' });
    try {
      expect(stores.durable).toBe(false);
    } finally {
      await stores.close();
    }
  });

  it('reports a SQLite file and the memory store as they are: durable and not', async () => {
    const file = await openDemoStores({ ...common, kind: 'sqlite', sqlitePath: join(directory, 'demo.sqlite') });
    const memory = await openDemoStores({ ...common, kind: 'memory' });
    try {
      expect(file.durable).toBe(true);
      expect(memory.durable).toBe(false);
    } finally {
      await file.close();
      await memory.close();
    }
  });
});

describe('isDurableSqlitePath', () => {
  it.each([':memory:', '', '   ', ' :memory: ', '\t:memory:\n'])('%j: better-sqlite3 opens it in memory or as a temporary file', (path) => {
    expect(isDurableSqlitePath(path)).toBe(false);
  });

  it.each(['demo.sqlite', '/tmp/demo.sqlite', './:memory:', ':memory:.sqlite', 'memory'])('%j names a file', (path) => {
    expect(isDurableSqlitePath(path)).toBe(true);
  });
});
