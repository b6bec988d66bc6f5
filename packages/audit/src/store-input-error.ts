const marker = Symbol.for('toolseal.error.StoreInputError');

/**
 * Thrown when a caller hands a store input it must never hand it (a malformed digest, an empty
 * key, a body that is not JSON). That is a bug in the caller, not an expected outcome: expected
 * outcomes (conflict, fenced, in progress...) are returned as values.
 */
export class StoreInputError extends Error {
  readonly [marker] = true;
  /** Which input field was wrong. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'StoreInputError';
    this.field = field;
  }

  /** True for a StoreInputError from any copy of this package. */
  static isInstance(value: unknown): value is StoreInputError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
