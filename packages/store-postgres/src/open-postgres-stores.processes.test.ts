// Real child processes against PostgreSQL: crash injection (SIGKILL between the handler and
// completion, and while holding the audit head lock).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClaimOutcome } from '@toolseal/audit';
import { exited, forkTypeScript, nextMessage } from '@toolseal/audit/child-process';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, dropSchemas, probeDatabase, RUN_SCHEMA } from './__fixtures__/test-database.js';
import { openPostgresStores } from './open-postgres-stores.js';

const available = await probeDatabase();
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
const directory = mkdtempSync(join(tmpdir(), 'toolseal-postgres-processes-'));
const schemaPrefix = `${RUN_SCHEMA}_processes`;
afterAll(async () => {
  if (available) await dropSchemas(pool, schemaPrefix);
  await pool.end();
  rmSync(directory, { recursive: true, force: true });
});
let schemas = 0;
const nextSchema = () => `${schemaPrefix}_${(schemas += 1)}`;
const REQUEST = 'a'.repeat(64);

interface ChildMessage {
  step: 'claimed' | 'handler_done' | 'not_run' | 'completed' | 'holding';
  claim: ClaimOutcome;
}

function sideEffects(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((line) => line !== '') : [];
}

async function attempt(mode: string, schema: string, sideEffectPath: string, key: string, offsetMs: number) {
  const child = forkTypeScript(new URL('./__fixtures__/crash-child.ts', import.meta.url), [mode, schema, sideEffectPath, key, REQUEST, String(offsetMs)]);
  const message = await nextMessage<ChildMessage>(child);
  return { child, message };
}

// Each child loads the TypeScript compiler to run its fixture: four of them in one test measured
// over 30 s on a slow machine of the CI kind (76 s once, with other packages testing beside them), so these tests get four minutes each.
describe.skipIf(!available)('PostgreSQL stores: crash injection with real processes', { timeout: 240_000 }, () => {
  it('a host killed between the handler and completion leaves outcome unknown; the handler never runs twice', async () => {
    const schema = nextSchema();
    await openPostgresStores({ pool, schema });
    const sideEffectPath = join(directory, `${schema}.side-effects`);
    const first = await attempt('after-handler', schema, sideEffectPath, 'key-crash', 0);
    expect(first.message).toMatchObject({ step: 'handler_done', claim: { kind: 'claimed', took_over: false } });
    first.child.kill('SIGKILL');
    expect(await exited(first.child)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(sideEffects(sideEffectPath)).toHaveLength(1);

    const early = await attempt('retry', schema, sideEffectPath, 'key-crash', 0);
    expect(early.message).toMatchObject({ step: 'not_run', claim: { kind: 'in_progress' } });
    await exited(early.child);

    const late = await attempt('retry', schema, sideEffectPath, 'key-crash', 60_000);
    expect(late.message).toEqual({ step: 'not_run', claim: { kind: 'outcome_unknown', recovery: 'query_status' } });
    await exited(late.child);

    expect(sideEffects(sideEffectPath)).toHaveLength(1);
    const stores = await openPostgresStores({ pool, schema });
    expect((await stores.idempotencyStore.get('key-crash'))?.state).toBe('unknown');
  });

  it('a host killed after claiming but before starting is taken over once its lease ends', async () => {
    const schema = nextSchema();
    await openPostgresStores({ pool, schema });
    const sideEffectPath = join(directory, `${schema}.side-effects`);
    const first = await attempt('after-claim', schema, sideEffectPath, 'key-claim', 0);
    expect(first.message).toMatchObject({ step: 'claimed', claim: { kind: 'claimed', took_over: false } });
    // The first token's value is the audit package's business; a takeover adds one to it.
    const firstToken = first.message.claim.kind === 'claimed' ? first.message.claim.fencing_token : Number.NaN;
    first.child.kill('SIGKILL');
    await exited(first.child);

    const retry = await attempt('retry', schema, sideEffectPath, 'key-claim', 60_000);
    expect(retry.message).toMatchObject({ step: 'completed', claim: { kind: 'claimed', fencing_token: firstToken + 1, took_over: true } });
    await exited(retry.child);
    const replay = await attempt('retry', schema, sideEffectPath, 'key-claim', 120_000);
    expect(replay.message).toMatchObject({ step: 'not_run', claim: { kind: 'completed', delivery: 'local_replay' } });
    await exited(replay.child);
    expect(sideEffects(sideEffectPath)).toHaveLength(1);
  });

  it('a host killed while holding the audit head lock leaves the chain appendable and intact', async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool, schema });
    await stores.auditLog.append({ kind: 'sealed_call', call_id: 'before', operation_id: null, idempotency_key: null, body: {} });
    const holder = await attempt('hold-append-lock', schema, join(directory, 'unused'), 'unused', 0);
    expect(holder.message.step).toBe('holding');
    const blocked = stores.auditLog.append({ kind: 'sealed_call', call_id: 'after', operation_id: null, idempotency_key: null, body: {} });
    holder.child.kill('SIGKILL');
    await exited(holder.child);
    // PostgreSQL rolls the dead session back and releases the lock; the waiting append goes on.
    expect((await blocked).sequence).toBe(2);
    expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 2 });
  });
});

describe.skipIf(!available)('PostgreSQL stores: findUnresolved sees what other processes wrote', { timeout: 240_000 }, () => {
  it('finds the started record of a host killed after its handler ran, and the unknown one after a retry', async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool, schema });
    const sideEffectPath = join(directory, `${schema}.side-effects`);
    const first = await attempt('after-handler', schema, sideEffectPath, 'key-find', 0);
    expect(first.message).toMatchObject({ step: 'handler_done', claim: { kind: 'claimed', took_over: false } });
    first.child.kill('SIGKILL');
    await exited(first.child);
    const started = await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 10 });
    expect(started?.map((record) => [record.key, record.state, record.owner])).toEqual([['key-find', 'started', `pid-${first.child.pid}`]]);
    // Another process's claim turns the record unknown once its lease ran out: still unresolved.
    const late = await attempt('retry', schema, sideEffectPath, 'key-find', 60_000);
    expect(late.message.claim).toEqual({ kind: 'outcome_unknown', recovery: 'query_status' });
    await exited(late.child);
    const unknown = await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 10 });
    expect(unknown?.map((record) => [record.key, record.state])).toEqual([['key-find', 'unknown']]);
    expect(await stores.idempotencyStore.findUnresolved?.({ request_sha256: 'b'.repeat(64), limit: 10 })).toEqual([]);
  });
});

interface LossMessage {
  step: 'idle' | 'recovered' | 'append_failed';
  claim?: ClaimOutcome['kind'];
  sequence?: number;
  pid?: number;
  message?: string;
  verified?: boolean;
}

/** The child's backends, found by the `application_name` it connects with. */
async function backendsOf(applicationName: string) {
  const result = await pool.query<{ pid: number; state: string | null; wait_event_type: string | null }>(
    'SELECT pid, state, wait_event_type FROM pg_stat_activity WHERE application_name = $1',
    [applicationName],
  );
  return result.rows;
}

async function terminate(pids: readonly number[]): Promise<boolean[]> {
  const result = await pool.query<{ ended: boolean }>('SELECT pg_terminate_backend(pid) AS ended FROM unnest($1::int[]) AS pid', [pids]);
  return result.rows.map((row) => row.ended);
}

// The server ends a connection (restart, failover, a proxy's idle timeout): the host process
// must live on, and the stores carry on over a new connection.
describe.skipIf(!available)('PostgreSQL stores: lost connections with real processes', { timeout: 240_000 }, () => {
  const child = (mode: 'idle' | 'in-flight', schema: string) =>
    forkTypeScript(new URL('./__fixtures__/connection-loss-child.ts', import.meta.url), [mode, schema, schema]);

  it('a host survives the server ending an idle connection of the pool the stores created, and the next calls use a fresh one', async () => {
    const schema = nextSchema();
    const host = child('idle', schema);
    const idle = await nextMessage<LossMessage>(host);
    expect(idle).toMatchObject({ step: 'idle', claim: 'claimed' });
    const backends = await backendsOf(schema);
    expect(backends).toEqual([{ pid: idle.pid, state: 'idle', wait_event_type: 'Client' }]);
    expect(await terminate([idle.pid ?? 0])).toEqual([true]);

    const recovered = nextMessage<LossMessage>(host);
    host.send('terminated');
    const after = await recovered;
    expect(after).toMatchObject({ step: 'recovered', claim: 'claimed', sequence: 1 });
    expect(after.pid).not.toBe(idle.pid);
    expect(await exited(host)).toEqual({ code: 0, signal: null });
  });

  it('a host survives the server ending the connection of an append waiting for the head lock; that append rejects and the next one commits', async () => {
    const schema = nextSchema();
    await openPostgresStores({ pool, schema });
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT sequence FROM "${schema}".audit_head WHERE id = 1 FOR UPDATE`);
      const host = child('in-flight', schema);
      const failed = nextMessage<LossMessage>(host);
      // The child's append is checked out of its pool and blocked on the lock this test holds.
      let waiting: number | undefined;
      const deadline = Date.now() + 30_000;
      while (waiting === undefined) {
        if (Date.now() > deadline) throw new Error('the child never waited for the head lock');
        waiting = (await backendsOf(schema)).find((backend) => backend.wait_event_type === 'Lock')?.pid;
        if (waiting === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await terminate([waiting])).toEqual([true]);
      expect(await failed).toEqual({ step: 'append_failed', message: 'terminating connection due to administrator command' });

      await holder.query('ROLLBACK');
      const recovered = nextMessage<LossMessage>(host);
      host.send('released');
      expect(await recovered).toEqual({ step: 'recovered', sequence: 1, verified: true });
      expect(await exited(host)).toEqual({ code: 0, signal: null });
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
  });
});
