const MARKER = Symbol.for('toolseal.error.PostgresAppendQueueFullError');

/**
 * An audit append was refused at once because `maxPendingAppends` appends of this store, or
 * `maxPendingUnits` code units of their text, were already waiting for their transaction (the
 * database answers slowly or not at all). Nothing was
 * queued or written. Thrown (a store outage, not an expected outcome): a dispatcher treats it like
 * any store call that threw. It bounds the memory a hung database can make the host hold.
 */
export class PostgresAppendQueueFullError extends Error {
  /** The appends waiting when this one was refused. */
  readonly pending: number;

  constructor(pending: number) {
    super(`append: ${pending} audit appends already wait for the database (maxPendingAppends or maxPendingUnits); nothing was written`);
    this.name = 'PostgresAppendQueueFullError';
    this.pending = pending;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a `PostgresAppendQueueFullError` from any copy of this package. */
  static isInstance(value: unknown): value is PostgresAppendQueueFullError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
