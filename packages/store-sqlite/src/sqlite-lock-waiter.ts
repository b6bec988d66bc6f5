import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { SqliteLockTimeoutError } from './sqlite-lock-timeout-error.js';

/** The first pause between two attempts, in ms; it doubles after each, up to MAX_RETRY_PAUSE_MS. */
const FIRST_RETRY_PAUSE_MS = 1;
/** The longest pause between two attempts: how late, at most, a waiting call notices a freed lock. */
const MAX_RETRY_PAUSE_MS = 50;

/**
 * True for SQLite's "database is locked" answer (SQLITE_BUSY and its extended codes): another
 * connection holds a lock this statement needs, and the statement did nothing.
 * https://www.sqlite.org/rescode.html#busy
 */
export function isSqliteBusy(error: unknown): boolean {
  return error instanceof BetterSqlite3.SqliteError && (error.code === 'SQLITE_BUSY' || error.code.startsWith('SQLITE_BUSY_'));
}

/**
 * Waits for SQLite locks without holding the event loop. better-sqlite3 is synchronous: with a
 * long `busy_timeout`, a statement that meets another connection's write lock sleeps inside the
 * call, and no timer, I/O callback or abort of the process can run meanwhile (a caller's watchdog
 * included). So the connection's `busy_timeout` is kept short (one attempt blocks at most that
 * long), and a call that still meets the lock tries again after a pause on a timer, until its
 * time (`lockTimeoutMs` from when it was made) runs out.
 *
 * Retrying is sound only because an attempt that fails with SQLITE_BUSY did nothing: it failed to
 * take the lock (`BEGIN IMMEDIATE`, or an autocommit statement), or it failed inside a
 * transaction, which better-sqlite3 then rolls back whole. Every attempt must read and decide
 * afresh (inside its transaction), never reuse what an earlier attempt read.
 */
export class SqliteLockWaiter {
  readonly #lockTimeoutMs: number;
  /** Writes that are waiting, oldest first (the oldest is the one retrying). */
  #waitingWrites = 0;
  /** Settles after the newest waiting write has settled. */
  #tail: Promise<void> = Promise.resolve();

  /** `lockTimeoutMs`: a non-negative whole number of milliseconds (checked by the caller). */
  constructor(lockTimeoutMs: number) {
    this.#lockTimeoutMs = lockTimeoutMs;
  }

  /**
   * Runs `attempt`, a synchronous write that takes SQLite's write lock, until it does not fail with
   * SQLITE_BUSY. Writes of one connection take the lock in call order, as they did when every
   * write was synchronous: while one is waiting, later ones wait behind it. When nothing is
   * waiting and the lock is free, `attempt` runs at once and its value is returned directly (no
   * timer, no extra promise). Rejects with `SqliteLockTimeoutError` once the time is out; any
   * other error of `attempt` passes through (thrown synchronously from the first attempt).
   */
  write<T>(operation: string, attempt: () => T): T | Promise<T> {
    const startedAt = performance.now();
    if (this.#waitingWrites > 0) return this.#enqueue(operation, attempt, startedAt, 0, undefined);
    try {
      return attempt();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      return this.#enqueue(operation, attempt, startedAt, 1, error);
    }
  }

  /**
   * Runs `attempt`, a synchronous read, retrying on SQLITE_BUSY like `write` (in WAL mode a reader
   * meets it only in rare cases, such as another connection recovering the WAL). Reads never wait
   * behind writes.
   */
  read<T>(operation: string, attempt: () => T): T | Promise<T> {
    const startedAt = performance.now();
    try {
      return attempt();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      return this.#retry(operation, attempt, startedAt, 1, error);
    }
  }

  #enqueue<T>(operation: string, attempt: () => T, startedAt: number, attempts: number, lastError: unknown): Promise<T> {
    this.#waitingWrites += 1;
    const answer = this.#tail.then(() => this.#retry(operation, attempt, startedAt, attempts, lastError));
    const settled = (): void => {
      this.#waitingWrites -= 1;
    };
    this.#tail = answer.then(settled, settled);
    return answer;
  }

  async #retry<T>(operation: string, attempt: () => T, startedAt: number, attempts: number, lastError: unknown): Promise<T> {
    const deadline = startedAt + this.#lockTimeoutMs;
    let pause = FIRST_RETRY_PAUSE_MS;
    for (;;) {
      const remaining = deadline - performance.now();
      // No attempt begins once the time is out: after the rejection nothing of this call can write.
      if (remaining <= 0) break;
      if (attempts > 0) {
        // The pause ends at the deadline at the latest; that last attempt may start a little after
        // it, by however late the event loop runs the timer, but never once the loop ran it so
        // late (a stalled event loop) that a caller's own timeout may have given up on the call.
        await sleep(Math.min(pause, remaining));
        if (performance.now() - deadline > MAX_RETRY_PAUSE_MS) break;
        pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS);
      }
      attempts += 1;
      try {
        return attempt();
      } catch (error) {
        if (!isSqliteBusy(error)) throw error;
        lastError = error;
      }
    }
    throw new SqliteLockTimeoutError(operation, Math.round(performance.now() - startedAt), attempts, lastError);
  }
}
