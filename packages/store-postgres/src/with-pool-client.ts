import type { Pool, PoolClient } from 'pg';

/**
 * Runs `use` on a client checked out of `pool`, then releases it.
 *
 * pg-pool listens for 'error' only on its idle clients: a checked-out client whose connection the
 * server ends (restart, failover, a proxy's idle timeout, `pg_terminate_backend`) emits 'error'
 * with no listener, and Node ends the host process, even when the query in flight has already
 * rejected with that error. The listener here only keeps the error: the query in flight, or the
 * next one, rejects and `use` fails with it, and the client is released with the error so the pool
 * discards it instead of handing it out again. So is a client on which `use` failed for any reason. From the release on, the pool's own listener takes
 * over (see the README: a pool the host passes in needs its own 'error' listener).
 */
export async function withPoolClient<T>(pool: Pool, use: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const keepError = (error: Error) => {
    lost ??= error;
  };
  client.on('error', keepError);
  try {
    return await use(client);
  } catch (error) {
    // The server sends its error (a terminated backend's 57P01, a shutdown) before it closes the
    // socket, and the query rejects on the error: 'error' comes only with the close, a few
    // milliseconds later. Any failure discards the client, so the next call never gets a
    // connection that is about to die (an ordinary error costs one reconnect).
    lost ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.off('error', keepError);
    client.release(lost);
  }
}
