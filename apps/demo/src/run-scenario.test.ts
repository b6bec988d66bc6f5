// The demo's scenario as a test: every expectation met, on the memory store and on a SQLite file
// used twice (the second run must still hold, with the idempotency records of the first); and
// stopped, as a value, by a store that fails.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock, type AuditEntry } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { afterAll, describe, expect, it } from 'vitest';
import { openDemoStores, type StoreKind } from './demo-stores.js';
import { DEMO_KEY, runScenario, type ScenarioReport, type TurnRecord } from './run-scenario.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-demo-'));
const sqlitePath = join(directory, 'demo.sqlite');
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function run(kind: StoreKind): Promise<ScenarioReport> {
  const stores = await openDemoStores({ kind, sqlitePath, clock: systemClock, digester: createDigester({ key: DEMO_KEY }) });
  try {
    const outcome = await runScenario({ stores, storeKind: kind });
    if (!outcome.ok) throw new Error(`the ${kind} store failed: ${outcome.error.message}`);
    return outcome.report;
  } finally {
    await stores.close();
  }
}

function expectAllMet(report: ScenarioReport): void {
  expect(report.failures).toEqual([]);
  expect(report.ok).toBe(true);
  expect(report.chain.ok).toBe(true);
  expect(report.providers).toEqual(['openai', 'anthropic', 'gemini']);
  expect(report.expectations.met).toBe(report.expectations.total);
}

describe('the demo scenario', () => {
  it('meets every expectation on the memory store', async () => {
    const report = await run('memory');
    expectAllMet(report);
    expect(report.persisted_records).toBe(0);
    expect(report.summary).toMatch(/^toolseal demo: 3 providers, \d+ turns, \d+ calls, (\d+)\/\1 expectations met; audit chain verified/);
    // Every attack of the specification is in the script and was refused.
    const titles = report.turns.map((turn) => turn.title).join('\n');
    for (const attack of ['result swap', 'forged digest', 'top-level status', 'nests a token', 'prompt injection', 'crashes']) {
      expect(titles.toLowerCase()).toContain(attack);
    }
    // The model never saw a protected field in any payload.
    const payloads = JSON.stringify(report.turns.flatMap((turn) => turn.calls.map((call) => call.model_payload)));
    expect(payloads).not.toMatch(/principal_ref|request_sha256|call_binding_sha256|operation_id|idempotency_key/);
  });

  it('meets every expectation on a SQLite file, twice: the second run replays the persisted records', async () => {
    const first = await run('sqlite');
    expectAllMet(first);
    expect(first.persisted_records).toBe(0);
    expect(first.summary).toContain('first run on this store');

    const second = await run('sqlite');
    expectAllMet(second);
    expect(second.persisted_records).toBe(3);
    expect(second.summary).toContain('idempotency records from an earlier run: 3 replayed, none executed again');
    // The second run appends what the first did, less the `write_started` entries of the three
    // approved writes it replays instead of running.
    expect(second.chain.ok && second.chain.checked).toBe(first.chain.ok ? first.chain.checked * 2 - 3 : -1);
    const approved = second.turns.filter((turn) => turn.title.startsWith('A person approves the exact request'));
    expect(approved.map((turn) => turn.calls[0]?.delivery)).toEqual(['local_replay', 'local_replay', 'local_replay']);
  });
});

describe('the demo scenario on a store that fails at the first call', () => {
  it('stops before any turn is reported when the audit log answers an append without an entry', async () => {
    const stores = await openDemoStores({ kind: 'memory', clock: systemClock, digester: createDigester({ key: DEMO_KEY }) });
    // Far outside the contract (an append resolves to its entry): the dispatcher withholds the
    // call (gate `audit`, `audit_entry: null`) without any store call throwing.
    const noEntry: unknown = {};
    stores.auditLog.append = () => Promise.resolve(noEntry as AuditEntry);
    const reported: TurnRecord[] = [];
    const outcome = await runScenario({ stores, storeKind: 'memory', providers: ['openai'], onTurn: (turn) => reported.push(turn) });
    expect(outcome).toEqual({ ok: false, error: { operation: 'auditLog.append', message: 'auditLog.append recorded no entry for the call' } });
    expect(reported).toEqual([]);
  });
});
