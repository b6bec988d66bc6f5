// One of several host processes racing duplicate claims on one SQLite file (its own connection).
// Every claim that wins runs the counting "handler" (one line appended to a side-effect file)
// between markStarted and complete, as the dispatcher will.
import { appendFileSync } from 'node:fs';
import type { ClaimOutcome } from '@toolseal/audit';
import { openSqliteStores } from '../open-sqlite-stores.js';

const [databasePath, sideEffectPath, keysJson, claimsPerKey, request] = process.argv.slice(2);
if (databasePath === undefined || sideEffectPath === undefined || keysJson === undefined || claimsPerKey === undefined || request === undefined) {
  throw new Error('usage: claim-race-child <database> <side-effect file> <keys json> <claims per key> <request sha256>');
}
const keys = JSON.parse(keysJson) as string[];
const stores = openSqliteStores({ path: databasePath, lockTimeoutMs: 60_000 });
const store = stores.idempotencyStore;
const counts: Record<ClaimOutcome['kind'], number> = { claimed: 0, in_progress: 0, completed: 0, outcome_unknown: 0, conflict: 0 };
const won: string[] = [];

async function race(): Promise<void> {
  for (let round = 0; round < Number(claimsPerKey); round += 1) {
    // A different key order per process and round, so processes collide on different keys.
    const order = [...keys].sort(() => Math.random() - 0.5);
    for (const key of order) {
      const claim = await store.claim({ key, request_sha256: request ?? '', owner: `pid-${process.pid}`, lease_ms: 60_000 });
      counts[claim.kind] += 1;
      if (claim.kind !== 'claimed') continue;
      won.push(key);
      const started = await store.markStarted({ key, fencing_token: claim.fencing_token, lease_ms: 60_000 });
      if (!started.ok) throw new Error(`markStarted refused: ${started.reason}`);
      appendFileSync(sideEffectPath ?? '', `${key}\n`);
      const completed = await store.complete({ key, fencing_token: claim.fencing_token, result: { sealed_json: `{"key":"${key}"}`, receipt: null } });
      if (!completed.ok) throw new Error(`complete refused: ${completed.reason}`);
    }
  }
}

process.send?.({ step: 'ready' });
process.once('message', () => {
  race().then(
    () => {
      process.send?.({ step: 'done', counts, won }, () => {
        stores.close();
        process.exit(0);
      });
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
