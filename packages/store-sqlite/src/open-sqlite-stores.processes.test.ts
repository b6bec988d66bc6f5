// Real child processes: crash injection (SIGKILL between the handler and completion) and a
// duplicate-claim race between eight processes, each with its own connection to one WAL file.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClaimOutcome } from '@toolseal/audit';
import { exited, forkTypeScript, nextMessage } from '@toolseal/audit/child-process';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStores } from './open-sqlite-stores.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-sqlite-processes-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const REQUEST = 'a'.repeat(64);

interface ChildMessage {
  step: 'claimed' | 'handler_done' | 'not_run' | 'completed';
  claim: ClaimOutcome;
}

function sideEffects(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((line) => line !== '') : [];
}

async function attempt(mode: string, databasePath: string, sideEffectPath: string, key: string, offsetMs: number) {
  const child = forkTypeScript(new URL('./__fixtures__/crash-child.ts', import.meta.url), [mode, databasePath, sideEffectPath, key, REQUEST, String(offsetMs)]);
  const message = await nextMessage<ChildMessage>(child);
  return { child, message };
}

// Each child loads the TypeScript compiler to run its fixture: four of them in one test measured
// over 30 s on a slow machine of the CI kind, so these tests get two minutes each.
describe('SQLite stores: crash injection with real processes', { timeout: 120_000 }, () => {
  it('a host killed between the handler and completion leaves outcome unknown; the handler never runs twice', async () => {
    const databasePath = join(directory, 'crash.db');
    const sideEffectPath = join(directory, 'crash.side-effects');
    const first = await attempt('after-handler', databasePath, sideEffectPath, 'key-crash', 0);
    expect(first.message).toMatchObject({ step: 'handler_done', claim: { kind: 'claimed', fencing_token: 1 } });
    first.child.kill('SIGKILL');
    expect(await exited(first.child)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(sideEffects(sideEffectPath)).toHaveLength(1);

    // While the dead host's lease (30 s) runs, a retry is told to wait.
    const early = await attempt('retry', databasePath, sideEffectPath, 'key-crash', 0);
    expect(early.message).toMatchObject({ step: 'not_run', claim: { kind: 'in_progress' } });
    expect(await exited(early.child)).toEqual({ code: 0, signal: null });

    // After it, the retry learns the outcome is unknown and does not run the handler again.
    const late = await attempt('retry', databasePath, sideEffectPath, 'key-crash', 60_000);
    expect(late.message).toEqual({ step: 'not_run', claim: { kind: 'outcome_unknown', recovery: 'query_status' } });
    expect(await exited(late.child)).toEqual({ code: 0, signal: null });
    const again = await attempt('retry', databasePath, sideEffectPath, 'key-crash', 3_600_000);
    expect(again.message.claim).toEqual({ kind: 'outcome_unknown', recovery: 'query_status' });
    await exited(again.child);

    expect(sideEffects(sideEffectPath)).toHaveLength(1);
    const stores = openSqliteStores({ path: databasePath });
    try {
      expect((await stores.idempotencyStore.get('key-crash'))?.state).toBe('unknown');
    } finally {
      stores.close();
    }
  });

  it('a host killed after claiming but before starting is taken over once its lease ends', async () => {
    const databasePath = join(directory, 'crash-claim.db');
    const sideEffectPath = join(directory, 'crash-claim.side-effects');
    const first = await attempt('after-claim', databasePath, sideEffectPath, 'key-claim', 0);
    expect(first.message).toMatchObject({ step: 'claimed', claim: { kind: 'claimed', fencing_token: 1 } });
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(sideEffects(sideEffectPath)).toHaveLength(0);

    const retry = await attempt('retry', databasePath, sideEffectPath, 'key-claim', 60_000);
    expect(retry.message).toMatchObject({ step: 'completed', claim: { kind: 'claimed', fencing_token: 2, took_over: true } });
    await exited(retry.child);
    const replay = await attempt('retry', databasePath, sideEffectPath, 'key-claim', 120_000);
    expect(replay.message).toMatchObject({ step: 'not_run', claim: { kind: 'completed', delivery: 'local_replay' } });
    await exited(replay.child);
    expect(sideEffects(sideEffectPath)).toHaveLength(1);
  });
});

describe('SQLite stores: eight processes race duplicate claims', () => {
  it('exactly one claim wins per key and the handler runs exactly once per key', async () => {
    const databasePath = join(directory, 'race.db');
    const sideEffectPath = join(directory, 'race.side-effects');
    openSqliteStores({ path: databasePath }).close(); // migrate once up front
    const keys = Array.from({ length: 20 }, (_, index) => `key-${index}`);
    const processes = 8;
    const claimsPerKey = 200 / processes; // 200 duplicate claims per key in total
    const spawn = () =>
      forkTypeScript(new URL('./__fixtures__/claim-race-child.ts', import.meta.url), [databasePath, sideEffectPath, JSON.stringify(keys), String(claimsPerKey), REQUEST]);
    // The first child warms the transpile cache; the others then start quickly. All wait for "go".
    const children = [spawn()];
    await nextMessage(children[0] as ChildProcess);
    children.push(...Array.from({ length: processes - 1 }, spawn));
    await Promise.all(children.slice(1).map((child) => nextMessage(child)));
    const results = children.map((child) => nextMessage<{ counts: Record<ClaimOutcome['kind'], number>; won: string[] }>(child));
    for (const child of children) child.send({ go: true });
    const reports = await Promise.all(results);
    await Promise.all(children.map((child) => exited(child)));

    const total = (kind: ClaimOutcome['kind']) => reports.reduce((sum, report) => sum + report.counts[kind], 0);
    expect(total('claimed') + total('in_progress') + total('completed')).toBe(keys.length * 200);
    expect(total('claimed')).toBe(keys.length);
    expect(total('outcome_unknown') + total('conflict')).toBe(0);
    expect(reports.flatMap((report) => report.won).sort()).toEqual([...keys].sort());
    const lines = sideEffects(sideEffectPath);
    expect(lines.sort()).toEqual([...keys].sort());
  }, 120_000);
});
