// Real child processes: crash injection (SIGKILL between the handler and completion) and a
// duplicate-claim race between eight processes, each with its own connection to one WAL file.
import type { ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClaimOutcome } from '@toolseal/audit';
import { exited, forkTypeScript, nextMessage } from '@toolseal/audit/child-process';
import { afterAll, describe, expect, it } from 'vitest';
import type { UnprivilegedAttempt, UnprivilegedOutcome } from './__fixtures__/open-unprivileged-child.js';
import { openSqliteStores } from './open-sqlite-stores.js';
import { SqliteLockTimeoutError } from './sqlite-lock-timeout-error.js';

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
// over 30 s on a slow machine of the CI kind (76 s once, with other packages testing beside them), so these tests get four minutes each.
describe('SQLite stores: crash injection with real processes', { timeout: 240_000 }, () => {
  it('a host killed between the handler and completion leaves outcome unknown; the handler never runs twice', async () => {
    const databasePath = join(directory, 'crash.db');
    const sideEffectPath = join(directory, 'crash.side-effects');
    const first = await attempt('after-handler', databasePath, sideEffectPath, 'key-crash', 0);
    expect(first.message).toMatchObject({ step: 'handler_done', claim: { kind: 'claimed', took_over: false } });
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
    expect(first.message).toMatchObject({ step: 'claimed', claim: { kind: 'claimed', took_over: false } });
    // The first token's value is the audit package's business; a takeover adds one to it.
    const firstToken = first.message.claim.kind === 'claimed' ? first.message.claim.fencing_token : Number.NaN;
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(sideEffects(sideEffectPath)).toHaveLength(0);

    const retry = await attempt('retry', databasePath, sideEffectPath, 'key-claim', 60_000);
    expect(retry.message).toMatchObject({ step: 'completed', claim: { kind: 'claimed', fencing_token: firstToken + 1, took_over: true } });
    await exited(retry.child);
    const replay = await attempt('retry', databasePath, sideEffectPath, 'key-claim', 120_000);
    expect(replay.message).toMatchObject({ step: 'not_run', claim: { kind: 'completed', delivery: 'local_replay' } });
    await exited(replay.child);
    expect(sideEffects(sideEffectPath)).toHaveLength(1);
  });
});

describe('SQLite stores: findUnresolved sees what other processes wrote', { timeout: 240_000 }, () => {
  it('finds the started record of a host killed after its handler ran, and the unknown one after a retry', async () => {
    const databasePath = join(directory, 'find-unresolved.db');
    const sideEffectPath = join(directory, 'find-unresolved.side-effects');
    const stores = openSqliteStores({ path: databasePath });
    try {
      const first = await attempt('after-handler', databasePath, sideEffectPath, 'key-find', 0);
      expect(first.message).toMatchObject({ step: 'handler_done', claim: { kind: 'claimed', took_over: false } });
      first.child.kill('SIGKILL');
      await exited(first.child);
      const started = await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 10 });
      expect(started?.map((record) => [record.key, record.state, record.owner])).toEqual([['key-find', 'started', `pid-${first.child.pid}`]]);
      // Another process's claim turns the record unknown once its lease ran out: still unresolved.
      const late = await attempt('retry', databasePath, sideEffectPath, 'key-find', 60_000);
      expect(late.message.claim).toEqual({ kind: 'outcome_unknown', recovery: 'query_status' });
      await exited(late.child);
      const unknown = await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 10 });
      expect(unknown?.map((record) => [record.key, record.state])).toEqual([['key-find', 'unknown']]);
      expect(await stores.idempotencyStore.findUnresolved?.({ request_sha256: 'b'.repeat(64), limit: 10 })).toEqual([]);
    } finally {
      stores.close();
    }
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
  }, 240_000);
});

describe('SQLite stores: another process holds the write lock', { timeout: 240_000 }, () => {
  const HOLD_MS = 1_000;

  /** Starts a child process that holds the write lock on `databasePath` for HOLD_MS; resolves once it holds it. */
  async function holdWriteLockElsewhere(databasePath: string) {
    const child = forkTypeScript(new URL('./__fixtures__/lock-holder-child.ts', import.meta.url), [databasePath, String(HOLD_MS)]);
    expect(await nextMessage<{ step: string }>(child)).toEqual({ step: 'locked' });
    return child;
  }

  /** Records when a 10 ms interval runs, to see whether the event loop ran during a store call. */
  function watchEventLoop() {
    const ticks: number[] = [];
    const started = performance.now();
    const interval = setInterval(() => ticks.push(performance.now()), 10);
    return {
      stop() {
        clearInterval(interval);
        const stopped = performance.now();
        const times = [started, ...ticks, stopped];
        const longestStall = Math.max(...times.slice(1).map((time, index) => time - (times[index] ?? time)));
        return { ticks: ticks.length, longestStall, elapsed: stopped - started };
      },
    };
  }

  it('a store call waiting for the lock keeps the event loop running and succeeds once the lock is released', async () => {
    const databasePath = join(directory, 'lock-wait.db');
    const stores = openSqliteStores({ path: databasePath }); // defaults: 25 ms per attempt, 5 000 ms in all
    try {
      const child = await holdWriteLockElsewhere(databasePath);
      const loop = watchEventLoop();
      const [claim, entry] = await Promise.all([
        stores.idempotencyStore.claim({ key: 'key-wait', request_sha256: REQUEST, owner: 'host-a', lease_ms: 60_000 }),
        stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-wait', operation_id: null, idempotency_key: 'key-wait', body: { n: 1 } }),
      ]);
      const { ticks, longestStall, elapsed } = loop.stop();
      // It really waited for the other process (which held the lock about HOLD_MS after "locked").
      expect(elapsed).toBeGreaterThan(HOLD_MS / 2);
      expect(claim).toMatchObject({ kind: 'claimed', took_over: false });
      expect(entry.sequence).toBe(1);
      // A synchronous wait would show no tick and one stall as long as the whole wait; here each
      // attempt blocks at most 25 ms, and timers run between attempts.
      expect(ticks).toBeGreaterThanOrEqual(20);
      expect(longestStall).toBeLessThan(HOLD_MS / 2);
      expect(await exited(child)).toEqual({ code: 0, signal: null });
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 1 });
    } finally {
      stores.close();
    }
  });

  it('a call whose lockTimeoutMs is shorter than the hold fails with SqliteLockTimeoutError and writes nothing', async () => {
    const databasePath = join(directory, 'lock-timeout.db');
    const lockTimeoutMs = 200;
    const stores = openSqliteStores({ path: databasePath, lockTimeoutMs });
    try {
      const child = await holdWriteLockElsewhere(databasePath);
      const loop = watchEventLoop();
      const outcomes = await Promise.allSettled([
        stores.idempotencyStore.claim({ key: 'key-timeout', request_sha256: REQUEST, owner: 'host-a', lease_ms: 60_000 }),
        stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-timeout', operation_id: null, idempotency_key: 'key-timeout', body: { n: 1 } }),
      ]);
      const { ticks, elapsed } = loop.stop();
      const errors = outcomes.map((outcome) => (outcome.status === 'rejected' ? outcome.reason : outcome.value));
      expect(errors.map((error) => SqliteLockTimeoutError.isInstance(error) && error.operation)).toEqual(['claim', 'append']);
      for (const error of errors) {
        if (!SqliteLockTimeoutError.isInstance(error)) throw new Error('unreachable');
        expect(error.waitedMs).toBeGreaterThanOrEqual(lockTimeoutMs);
        expect(error.waitedMs).toBeLessThan(HOLD_MS);
      }
      expect(elapsed).toBeLessThan(HOLD_MS);
      expect(ticks).toBeGreaterThan(0);
      // The other process lets go later: nothing of the failed calls is written then either.
      expect(await exited(child)).toEqual({ code: 0, signal: null });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await stores.idempotencyStore.get('key-timeout')).toBeUndefined();
      expect(await stores.auditLog.head()).toBeNull();
      expect(await stores.auditLog.query({}, { limit: 10 })).toEqual({ entries: [], next: null });
    } finally {
      stores.close();
    }
  });
});

// The review ran these as the `nobody` user: a WAL store file in a directory the process may not
// write failed with a raw SqliteError ("attempt to write a readonly database") from the schema
// check, and the same file in a directory it may write was refused with StoreInputError but left
// -wal and -shm files behind, owned by the refused process. Root may write every file: the child
// gives root up before it opens anything (see its fixture), and a test run without root makes the
// files read-only for itself.
describe('SQLite stores: a process that may not write the file or its directory', { timeout: 240_000 }, () => {
  it('refuses each with StoreInputError on path, creating no file and leaving every file as it was', async () => {
    // The temporary directory is readable by its owner only: the child must reach the files.
    const base = join(directory, 'permissions');
    mkdirSync(base);
    chmodSync(directory, 0o755);
    chmodSync(base, 0o755);
    const readOnlyDirectory = join(base, 'read-only');
    const writableDirectory = join(base, 'writable');
    mkdirSync(readOnlyDirectory);
    mkdirSync(writableDirectory);
    const storeIn = (path: string) => {
      const stores = openSqliteStores({ path });
      stores.close();
      return path;
    };
    // A store file (WAL mode, closed: no -wal or -shm beside it) that this process may only read, in
    // a directory it may not write and in one it may; a new file in the first; a store file it may
    // write in the first, where SQLite cannot create the -wal and -shm files WAL needs, found at the
    // schema check's read; and an empty file it may write there, found when it is switched to WAL.
    const readOnlyInReadOnly = storeIn(join(readOnlyDirectory, 'read-only.db'));
    const writableInReadOnly = storeIn(join(readOnlyDirectory, 'writable.db'));
    const readOnlyInWritable = storeIn(join(writableDirectory, 'read-only.db'));
    const newInReadOnly = join(readOnlyDirectory, 'new.db');
    const emptyInReadOnly = join(readOnlyDirectory, 'empty.db');
    writeFileSync(emptyInReadOnly, '');
    chmodSync(readOnlyInReadOnly, 0o444);
    chmodSync(readOnlyInWritable, 0o444);
    chmodSync(writableInReadOnly, 0o666);
    chmodSync(emptyInReadOnly, 0o666);
    chmodSync(readOnlyDirectory, 0o555);
    chmodSync(writableDirectory, 0o777);
    const listing = () => ({ readOnly: readdirSync(readOnlyDirectory).sort(), writable: readdirSync(writableDirectory).sort() });
    const before = listing();
    const files = [readOnlyInReadOnly, writableInReadOnly, emptyInReadOnly, readOnlyInWritable];
    const bytes = files.map((path) => readFileSync(path));
    const attempts: UnprivilegedAttempt[] = [
      { mode: 'open', path: readOnlyInReadOnly },
      { mode: 'open', path: readOnlyInWritable },
      { mode: 'open', path: newInReadOnly },
      { mode: 'open', path: writableInReadOnly },
      { mode: 'migrate', path: writableInReadOnly },
      { mode: 'open', path: emptyInReadOnly },
    ];
    try {
      const child = forkTypeScript(new URL('./__fixtures__/open-unprivileged-child.ts', import.meta.url), [JSON.stringify(attempts)]);
      const { uid, outcomes } = await nextMessage<{ uid: number | null; outcomes: UnprivilegedOutcome[] }>(child);
      expect(await exited(child)).toEqual({ code: 0, signal: null });
      expect(uid).not.toBe(0);
      // No -wal or -shm file left beside a refused file, no new file, and every file's bytes as they were.
      expect(listing()).toEqual(before);
      expect(before).toEqual({ readOnly: ['empty.db', 'read-only.db', 'writable.db'], writable: ['read-only.db'] });
      const refusal = (message: RegExp) => ({ opened: false, name: 'StoreInputError', field: 'path', message: expect.stringMatching(message) });
      expect(outcomes).toEqual([
        refusal(/is a database this process can only read/),
        refusal(/is a database this process can only read/),
        refusal(/must be in a directory this process can write/),
        refusal(/cannot be opened for reading and writing by this process \(SQLite SQLITE_READONLY_DIRECTORY/),
        refusal(/cannot be opened for reading and writing by this process \(SQLite SQLITE_READONLY_DIRECTORY/),
        refusal(/cannot be opened for reading and writing by this process \(SQLite SQLITE_READONLY_DIRECTORY/),
      ]);
      expect(files.map((path) => readFileSync(path))).toEqual(bytes);
    } finally {
      // A test run without root could otherwise not remove them.
      chmodSync(readOnlyDirectory, 0o755);
      chmodSync(writableDirectory, 0o755);
    }
    // The same files still open for a process that may write them (this one, once they are writable).
    chmodSync(readOnlyInWritable, 0o644);
    const stores = openSqliteStores({ path: readOnlyInWritable });
    expect(stores.schemaVersion).toBeGreaterThan(0);
    stores.close();
  });

  // Review: SQLite opened such a file read-only without an error (the -shm file it cannot write),
  // the open passed, and every claim and append then failed with SQLITE_READONLY.
  it('refuses a file it may write whose leftover -wal and -shm files it may not, naming them', async () => {
    const base = join(directory, 'leftovers');
    mkdirSync(base);
    chmodSync(directory, 0o755);
    chmodSync(base, 0o777);
    const path = join(base, 'service.db');
    openSqliteStores({ path }).close();
    // Another process (root, or here this one) has the file open: its -wal and -shm files exist,
    // as they stay when that process is killed. The database is handed to the child's user.
    const holder = openSqliteStores({ path });
    try {
      expect(readdirSync(base).sort()).toEqual(['service.db', 'service.db-shm', 'service.db-wal']);
      if (process.getuid?.() === 0) {
        chownSync(path, 65534, 65534);
      } else {
        chmodSync(`${path}-wal`, 0o444);
        chmodSync(`${path}-shm`, 0o444);
      }
      const attempts: UnprivilegedAttempt[] = [{ mode: 'open', path }];
      const child = forkTypeScript(new URL('./__fixtures__/open-unprivileged-child.ts', import.meta.url), [JSON.stringify(attempts)]);
      const { uid, outcomes } = await nextMessage<{ uid: number | null; outcomes: UnprivilegedOutcome[] }>(child);
      expect(await exited(child)).toEqual({ code: 0, signal: null });
      expect(uid).not.toBe(0);
      expect(outcomes).toEqual([
        {
          opened: false,
          name: 'StoreInputError',
          field: 'path',
          message: expect.stringMatching(/can only read: its -wal file .*service\.db-wal" exists and this process may not write it/),
        },
      ]);
    } finally {
      chmodSync(`${path}-wal`, 0o644);
      chmodSync(`${path}-shm`, 0o644);
      holder.close();
    }
  });
});
