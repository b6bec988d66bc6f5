/** A length that is an object, and how often it was converted (`createObjectLength`). */
export interface ObjectLength {
  /** The object to answer as an array's `length`. */
  readonly length: object;
  /** How many times it was converted to a primitive so far, through `valueOf` or `toString`. */
  conversions(): number;
}

/**
 * An object whose `valueOf` answers `answers[0]` on the first conversion, `answers[1]` on the
 * second, and the last of `answers` on every conversion after that (`toString` answers the same
 * number as text); counts both kinds of conversion. No real array's `length` is an object: code
 * that compares or loops over it (`length > MAX`, `index < length`) converts it, and may get one
 * number for the check and another for the walk. Code that checks `typeof length === 'number'`
 * first leaves `conversions()` at 0.
 *
 * Throws a `TypeError` when `answers` is empty: the object would have nothing to answer.
 */
export function createObjectLength(answers: readonly number[]): ObjectLength {
  if (answers.length === 0) throw new TypeError('createObjectLength: answers must hold at least one number');
  const numbers = [...answers];
  let conversions = 0;
  const convert = (): number => numbers[Math.min(conversions++, numbers.length - 1)] as number;
  const length = {
    valueOf: convert,
    toString: () => String(convert()),
  };
  return { length, conversions: () => conversions };
}
