const MARKER = Symbol.for('toolseal.error.PostgresWriteContentionError');

/**
 * An idempotency write lost the race for its record `attempts` times in a row: other hosts kept
 * changing the record between this store's read and its conditional write (many hosts taking
 * over one key whose leases keep running out, say). Nothing was written by this call. Thrown (a
 * store outage, not an expected outcome): a dispatcher treats it like any store call that threw,
 * so the handler does not run.
 */
export class PostgresWriteContentionError extends Error {
  /** How many conditional writes were tried. */
  readonly attempts: number;

  constructor(attempts: number) {
    super(`idempotency write: the record changed under concurrent writers ${attempts} times in a row; nothing was written`);
    this.name = 'PostgresWriteContentionError';
    this.attempts = attempts;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a `PostgresWriteContentionError` from any copy of this package. */
  static isInstance(value: unknown): value is PostgresWriteContentionError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
