// A host process for the lost-connection tests: it opens the stores from a connection string (the
// pool they create), tagged with an `application_name` so the parent can find its backends and
// end them with `pg_terminate_backend`, as a server restart, a failover or a proxy's idle timeout
// would. It adds no 'error' listener of its own: if the stores leave one missing, Node ends this
// process and the parent sees it exit with code 1.
//
// Mode `idle`: one call, then its connection is ended while idle in the pool; the next calls must
// succeed on a fresh connection. Mode `in-flight`: an append waits for the audit head lock (held by
// the parent) when its connection is ended; that append rejects, and the next one succeeds.
import { openPostgresStores } from '../open-postgres-stores.js';
import { DATABASE_URL } from './test-database.js';

const [mode, schema, applicationName] = process.argv.slice(2);
if ((mode !== 'idle' && mode !== 'in-flight') || schema === undefined || applicationName === undefined) {
  throw new Error('usage: connection-loss-child <idle|in-flight> <schema> <application_name>');
}
const report = (message: object) => process.send?.(message);
const parentSays = () => new Promise<unknown>((resolve) => process.once('message', resolve));

const url = new URL(DATABASE_URL);
url.searchParams.set('application_name', applicationName);
const stores = await openPostgresStores({ connectionString: url.toString(), schema });
const backendPid = async () => (await stores.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
const append = (callId: string) =>
  stores.auditLog.append({ kind: 'sealed_call', call_id: callId, operation_id: null, idempotency_key: null, body: {} });

if (mode === 'idle') {
  const before = await stores.idempotencyStore.claim({ key: 'before', request_sha256: 'a'.repeat(64), owner: 'child', lease_ms: 30_000 });
  report({ step: 'idle', claim: before.kind, pid: await backendPid() });
  await parentSays();
  // The pool drops the client when its connection reports the loss; call only after that, so the
  // next call cannot be handed the dead client.
  const deadline = Date.now() + 10_000;
  while (stores.pool.totalCount > 0) {
    if (Date.now() > deadline) throw new Error('the pool kept the terminated connection');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const after = await stores.idempotencyStore.claim({ key: 'after', request_sha256: 'a'.repeat(64), owner: 'child', lease_ms: 30_000 });
  const entry = await append('after');
  report({ step: 'recovered', claim: after.kind, sequence: entry.sequence, pid: await backendPid() });
} else {
  const blocked = await append('blocked').then(
    () => 'appended',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  report({ step: 'append_failed', message: blocked });
  await parentSays();
  const entry = await append('after');
  const verification = await stores.auditLog.verifyChain();
  report({ step: 'recovered', sequence: entry.sequence, verified: verification.ok });
}
await stores.close();
process.disconnect?.();
