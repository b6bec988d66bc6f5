// A host process for the crash-injection tests. It claims a key, marks it started, runs the
// "handler" (appends one line to a side-effect file), tells the parent, and then waits to be
// SIGKILLed before it can complete. Mode `retry` attempts the same call once and reports what the
// store answered, running the handler only when the claim says so.
import { appendFileSync } from 'node:fs';
import { openSqliteStores } from '../open-sqlite-stores.js';

const [mode, databasePath, sideEffectPath, key, request, offset = '0'] = process.argv.slice(2);
if (mode === undefined || databasePath === undefined || sideEffectPath === undefined || key === undefined || request === undefined) {
  throw new Error('usage: crash-child <after-handler|after-claim|retry> <database> <side-effect file> <key> <request sha256> [clock offset ms]');
}
// The offset plays "this attempt happens later", without sleeping through the lease.
const clockOffset = Number(offset);
const stores = openSqliteStores({ path: databasePath, clock: { now: () => Date.now() + clockOffset } });
const store = stores.idempotencyStore;
const report = (message: object) => process.send?.(message);

const claim = await store.claim({ key, request_sha256: request, owner: `pid-${process.pid}`, lease_ms: 30_000 });
if (mode === 'after-claim') {
  report({ step: 'claimed', claim });
} else if (claim.kind !== 'claimed') {
  report({ step: 'not_run', claim });
  stores.close();
  process.exit(0);
} else {
  const started = await store.markStarted({ key, fencing_token: claim.fencing_token, lease_ms: 30_000 });
  if (!started.ok) throw new Error(`markStarted refused: ${started.reason}`);
  appendFileSync(sideEffectPath, `${key} ${process.pid}\n`);
  if (mode === 'retry') {
    await store.complete({ key, fencing_token: claim.fencing_token, result: { sealed_json: '{"retry":true}', receipt: 'r' } });
    report({ step: 'completed', claim });
    stores.close();
    process.exit(0);
  }
  report({ step: 'handler_done', claim });
}
// Wait for SIGKILL: never complete.
setInterval(() => {}, 60_000);
