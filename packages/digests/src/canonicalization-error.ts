/** Why a value has no RFC 8785 canonical form. A finite vocabulary: log it, branch on it. */
export type CanonicalizationFailureReason =
  /** A string or an object key holds an unpaired UTF-16 surrogate, which has no UTF-8 encoding. */
  | 'lone_surrogate'
  /** A number is `NaN`, `Infinity` or `-Infinity`. */
  | 'non_finite_number'
  /**
   * Not plain JSON data: `undefined` (also as an array element, an array hole or a property value),
   * a BigInt, function or symbol, a symbol-keyed or non-enumerable property, or an object that is
   * neither a plain object nor a plain array (Date, Map, Set, RegExp, boxed primitives, class
   * instances, typed arrays).
   */
  | 'unsupported_type'
  /** Containers nest deeper than the `maxDepth` option allows. */
  | 'max_depth'
  /** A container contains itself. */
  | 'cycle';

const MARKER = Symbol.for('toolseal.error.CanonicalizationError');

/**
 * Thrown by `canonicalize` (and every digest function) when the value is not plain JSON data.
 * Toolseal only canonicalizes values that already passed the guard or were built by trusted code,
 * so this signals a bug or a misconfiguration, never an expected outcome. The message names the
 * reason only; `path` may contain attacker-chosen keys, so log it with care.
 */
export class CanonicalizationError extends Error {
  /** Why the value was rejected. */
  readonly reason: CanonicalizationFailureReason;
  /** RFC 6901 JSON Pointer to the offending value (`""` for the root). */
  readonly path: string;
  constructor(reason: CanonicalizationFailureReason, path: string) {
    super(`value has no canonical JSON form: ${reason}`);
    this.name = 'CanonicalizationError';
    this.reason = reason;
    this.path = path;
    // A registry symbol, not `instanceof`: works across duplicated copies of this package.
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a `CanonicalizationError` from any copy of this package. */
  static isInstance(value: unknown): value is CanonicalizationError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
