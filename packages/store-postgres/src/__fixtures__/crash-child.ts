// A host process for the crash-injection tests. It claims a key, marks it started, runs the
// "handler" (appends one line to a side-effect file), tells the parent, and then waits to be
// SIGKILLed before it can complete. Mode `retry` attempts the same call once and reports what the
// store answered, running the handler only when the claim says so. Mode `hold-append-lock`
// opens an append transaction, takes the head lock, and waits to be killed holding it.
import { appendFileSync } from 'node:fs';
import pg from 'pg';
import { openPostgresStores } from '../open-postgres-stores.js';
import { DATABASE_URL } from './test-database.js';

const [mode, schema, sideEffectPath, key, request, offset = '0'] = process.argv.slice(2);
if (mode === undefined || schema === undefined || sideEffectPath === undefined || key === undefined || request === undefined) {
  throw new Error('usage: crash-child <after-handler|after-claim|retry|hold-append-lock> <schema> <side-effect file> <key> <request sha256> [clock offset ms]');
}
const report = (message: object) => process.send?.(message);
const waitForKill = () => setInterval(() => {}, 60_000);

if (mode === 'hold-append-lock') {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`SELECT sequence FROM "${schema}".audit_head WHERE id = 1 FOR UPDATE`);
  report({ step: 'holding' });
  waitForKill();
} else {
  // The offset plays "this attempt happens later", without sleeping through the lease.
  const clockOffset = Number(offset);
  const stores = await openPostgresStores({ connectionString: DATABASE_URL, schema, clock: { now: () => Date.now() + clockOffset } });
  const store = stores.idempotencyStore;
  const claim = await store.claim({ key, request_sha256: request, owner: `pid-${process.pid}`, lease_ms: 30_000 });
  if (mode === 'after-claim') {
    report({ step: 'claimed', claim });
    waitForKill();
  } else if (claim.kind !== 'claimed') {
    report({ step: 'not_run', claim });
    await stores.close();
  } else {
    const started = await store.markStarted({ key, fencing_token: claim.fencing_token, lease_ms: 30_000 });
    if (!started.ok) throw new Error(`markStarted refused: ${started.reason}`);
    appendFileSync(sideEffectPath, `${key} ${process.pid}\n`);
    if (mode === 'retry') {
      await store.complete({ key, fencing_token: claim.fencing_token, result: { sealed_json: '{"retry":true}', receipt: 'r' } });
      report({ step: 'completed', claim });
      await stores.close();
    } else {
      report({ step: 'handler_done', claim });
      waitForKill();
    }
  }
}
