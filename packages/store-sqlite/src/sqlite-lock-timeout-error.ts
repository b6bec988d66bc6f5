const MARKER = Symbol.for('toolseal.error.SqliteLockTimeoutError');

/**
 * A store call gave up waiting for a lock another connection (or process) held on the SQLite file,
 * after the store's `lockTimeoutMs`. Nothing was written: every attempt that failed this way
 * failed on SQLITE_BUSY and was rolled back whole (see the package README, "Lock contention"),
 * and no attempt of the call is made after it rejects. Thrown (a store outage, not an expected
 * outcome of the idempotency protocol): a dispatcher treats it like any store call that threw.
 */
export class SqliteLockTimeoutError extends Error {
  /** The store method that gave up (`claim`, `markStarted`, ..., `append`, `verifyChain`...). */
  readonly operation: string;
  /** Milliseconds from the call to giving up (the host's monotonic clock, not the stores' `clock`). */
  readonly waitedMs: number;
  /**
   * How many times the call tried to take the lock. 0: it waited behind earlier writes of the same
   * connection until its time ran out and never tried.
   */
  readonly attempts: number;

  constructor(operation: string, waitedMs: number, attempts: number, cause: unknown) {
    super(
      `${operation}: gave up after ${waitedMs} ms (${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}) waiting for a lock ` +
        'another SQLite connection holds; nothing was written',
      cause === undefined ? undefined : { cause },
    );
    this.name = 'SqliteLockTimeoutError';
    this.operation = operation;
    this.waitedMs = waitedMs;
    this.attempts = attempts;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a `SqliteLockTimeoutError` from any copy of this package. */
  static isInstance(value: unknown): value is SqliteLockTimeoutError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
