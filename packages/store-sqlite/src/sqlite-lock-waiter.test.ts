import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { SqliteLockTimeoutError } from './sqlite-lock-timeout-error.js';
import { isSqliteBusy, SqliteLockWaiter } from './sqlite-lock-waiter.js';

const busy = (code = 'SQLITE_BUSY') => new BetterSqlite3.SqliteError('database is locked', code);

/** Holds the thread, as a synchronous SQLite busy wait does. */
function blockFor(milliseconds: number): void {
  const until = performance.now() + milliseconds;
  while (performance.now() < until) {
    // spin
  }
}

/** An attempt that fails with SQLITE_BUSY `failures` times, then answers `value`. */
function busyThen<T>(failures: number, value: T, log: string[] = [], name = 'attempt') {
  let calls = 0;
  const attempt = () => {
    calls += 1;
    log.push(name);
    if (calls <= failures) throw busy();
    return value;
  };
  return { attempt, calls: () => calls };
}

async function settle<T>(value: T | Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await value };
  } catch (error) {
    return { ok: false, error };
  }
}

describe('isSqliteBusy', () => {
  it('is true for SQLITE_BUSY and its extended codes only, from better-sqlite3', () => {
    expect(isSqliteBusy(busy())).toBe(true);
    expect(isSqliteBusy(busy('SQLITE_BUSY_SNAPSHOT'))).toBe(true);
    expect(isSqliteBusy(busy('SQLITE_BUSY_RECOVERY'))).toBe(true);
    expect(isSqliteBusy(busy('SQLITE_LOCKED'))).toBe(false);
    expect(isSqliteBusy(busy('SQLITE_BUSYNESS'))).toBe(false);
    expect(isSqliteBusy(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isSqliteBusy('SQLITE_BUSY')).toBe(false);
  });
});

describe('SqliteLockWaiter', () => {
  it('the review: makes no attempt when a stalled event loop ran its pause timer long after the deadline', async () => {
    const waiter = new SqliteLockWaiter(100);
    const { attempt, calls } = busyThen(1, 'written');
    const pending = settle(waiter.write('append', attempt));
    expect(calls()).toBe(1);
    // Once the retry waits on its first pause (a few microtasks on), the thread is held for three
    // times the timeout: the 1 ms pause timer runs 200 ms after the deadline, when the lock would
    // be free.
    for (let tick = 0; tick < 5; tick++) await Promise.resolve();
    blockFor(300);
    const outcome = await pending;
    expect(outcome.ok).toBe(false);
    expect(SqliteLockTimeoutError.isInstance(outcome.ok ? null : outcome.error)).toBe(true);
    expect(calls()).toBe(1);
  });


  it('answers a write that finds the lock free at once, with its value (no promise)', () => {
    const waiter = new SqliteLockWaiter(1000);
    expect(waiter.write('claim', () => 42)).toBe(42);
    expect(waiter.read('get', () => 'row')).toBe('row');
  });

  it('retries a busy write after pauses on a timer, so other callbacks run in between, until it succeeds', async () => {
    const waiter = new SqliteLockWaiter(5000);
    const { attempt, calls } = busyThen(5, 'written');
    let immediates = 0;
    const counting = setInterval(() => (immediates += 1), 0);
    try {
      const answer = waiter.write('claim', attempt);
      expect(answer).toBeInstanceOf(Promise);
      expect(await answer).toBe('written');
    } finally {
      clearInterval(counting);
    }
    expect(calls()).toBe(6);
    // Each pause is a timer: the interval ran during the wait.
    expect(immediates).toBeGreaterThan(0);
  });

  it('gives up after lockTimeoutMs with SqliteLockTimeoutError carrying the last SQLITE_BUSY, and never tries again', async () => {
    const waiter = new SqliteLockWaiter(60);
    const { attempt, calls } = busyThen(Number.POSITIVE_INFINITY, 'never');
    const started = performance.now();
    const outcome = await settle(waiter.write('append', attempt));
    const elapsed = performance.now() - started;
    expect(outcome.ok).toBe(false);
    const error = outcome.ok ? null : outcome.error;
    expect(SqliteLockTimeoutError.isInstance(error)).toBe(true);
    if (!SqliteLockTimeoutError.isInstance(error)) throw new Error('unreachable');
    expect(error.operation).toBe('append');
    expect(error.attempts).toBe(calls());
    // The first attempt, then at least the one at the deadline.
    expect(error.attempts).toBeGreaterThanOrEqual(2);
    expect(error.waitedMs).toBeGreaterThanOrEqual(60);
    expect(elapsed).toBeGreaterThanOrEqual(60);
    expect(isSqliteBusy(error.cause)).toBe(true);
    expect(error.message).toMatch(/^append: gave up after \d+ ms \(\d+ attempts\) .*nothing was written$/);
    // After the rejection nothing of the call runs again.
    const attemptsAtRejection = calls();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(calls()).toBe(attemptsAtRejection);
  });

  it('with lockTimeoutMs 0 makes exactly one attempt', async () => {
    const waiter = new SqliteLockWaiter(0);
    const { attempt, calls } = busyThen(1, 'late');
    const outcome = await settle(waiter.write('markStarted', attempt));
    expect(!outcome.ok && SqliteLockTimeoutError.isInstance(outcome.error) && outcome.error.attempts).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls()).toBe(1);
  });

  it('passes any other error through without retrying', async () => {
    const waiter = new SqliteLockWaiter(1000);
    const broken = new TypeError('The database connection is not open');
    expect(() =>
      waiter.write('claim', () => {
        throw broken;
      }),
    ).toThrow(broken);
    let calls = 0;
    const outcome = await settle(
      waiter.write('claim', () => {
        calls += 1;
        throw calls === 1 ? busy() : broken;
      }),
    );
    expect(outcome).toEqual({ ok: false, error: broken });
    expect(calls).toBe(2);
  });

  it('lets writes of one connection take the lock in call order; reads do not wait behind them', async () => {
    const waiter = new SqliteLockWaiter(5000);
    const log: string[] = [];
    const first = busyThen(3, 'first', log, 'first');
    const second = busyThen(0, 'second', log, 'second');
    const answers = [waiter.write('append', first.attempt), waiter.write('append', second.attempt)];
    // The second would have succeeded at once, but the first was already waiting.
    expect(second.calls()).toBe(0);
    expect(waiter.read('head', () => 'read')).toBe('read');
    expect(await Promise.all(answers)).toEqual(['first', 'second']);
    expect(log).toEqual(['first', 'first', 'first', 'first', 'second']);
    // Once nothing waits, a write runs at once again.
    expect(waiter.write('append', () => 'third')).toBe('third');
  });

  it('fails a write whose time ran out while it waited behind another, without trying it', async () => {
    // The waiter's clock is this test's: on a loaded machine, real time passing between the two
    // calls below (a preemption of 100 ms) gave the second write time left, and it ran.
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      const waiter = new SqliteLockWaiter(100);
      let firstCalls = 0;
      const first = () => {
        firstCalls += 1;
        // The first attempt holds the lock 5 ms, the second 150 ms: past the second write's time.
        now += firstCalls === 1 ? 5 : 150;
        throw busy();
      };
      const firstAnswer = settle(waiter.write('claim', first));
      const second = busyThen(0, 'second');
      const secondAnswer = settle(waiter.write('complete', second.attempt));
      const [firstOutcome, secondOutcome] = await Promise.all([firstAnswer, secondAnswer]);
      expect(firstCalls).toBe(2);
      expect(!firstOutcome.ok && SqliteLockTimeoutError.isInstance(firstOutcome.error)).toBe(true);
      expect(!secondOutcome.ok && SqliteLockTimeoutError.isInstance(secondOutcome.error) && secondOutcome.error.attempts).toBe(0);
      expect(!secondOutcome.ok && secondOutcome.error instanceof Error && secondOutcome.error.cause).toBeUndefined();
      expect(second.calls()).toBe(0);
    } finally {
      clock.mockRestore();
    }
  });

  it('retries a busy read without queueing it', async () => {
    const waiter = new SqliteLockWaiter(5000);
    const { attempt, calls } = busyThen(2, 'row');
    expect(await waiter.read('verifyChain', attempt)).toBe('row');
    expect(calls()).toBe(3);
  });
});

describe('SqliteLockTimeoutError', () => {
  it('is recognised across copies by its marker, not by class identity', () => {
    const error = new SqliteLockTimeoutError('claim', 12, 1, busy());
    expect(SqliteLockTimeoutError.isInstance(error)).toBe(true);
    expect(error.name).toBe('SqliteLockTimeoutError');
    expect(error.message).toBe('claim: gave up after 12 ms (1 attempt) waiting for a lock another SQLite connection holds; nothing was written');
    expect(SqliteLockTimeoutError.isInstance(new Error('claim'))).toBe(false);
    expect(SqliteLockTimeoutError.isInstance({ [Symbol.for('toolseal.error.SqliteLockTimeoutError')]: true })).toBe(true);
    expect(SqliteLockTimeoutError.isInstance(null)).toBe(false);
  });
});
