import { createObjectLength } from './create-object-length.js';

/** One length no real array answers, made fresh for each test. */
export interface NonIntegerLength {
  /** The value to answer as an array's `length` (`createLyingLengthArray(item, [length])`). */
  readonly length: unknown;
  /**
   * How many times `length` was converted to a primitive so far: counted for the object (through
   * `valueOf` or `toString`), always 0 for the primitives, which have nothing to count.
   */
  conversions(): number;
}

/** A row of `NON_INTEGER_LENGTHS`: how a test name reads the length, and how to make it. */
export type NonIntegerLengthCase = readonly [label: string, make: () => NonIntegerLength];

function primitive(length: unknown): () => NonIntegerLength {
  return () => ({ length, conversions: () => 0 });
}

/**
 * The answers a Proxy can give for an array's `length` and a real array never does, each as
 * `[label, make]` for `it.each` (`'... length is %s ...'` names the case by its label):
 *
 * - `'an object whose valueOf answers 1'` (`createObjectLength([1])`), which `length > MAX` and
 *   `index < length` convert, so its `conversions()` tells whether the code converted it;
 * - `'the string "1"'`, `'NaN'`, `'-1'`, `'1.5'` and `'Infinity'`.
 *
 * Code that reads a length once, as a plain number within its cap (`typeof length === 'number' &&
 * Number.isSafeInteger(length) && length >= 0 && length <= MAX`), refuses every one without reading
 * an index or converting anything. Call `make()` inside the test: each call gives a new counter.
 */
export const NON_INTEGER_LENGTHS: readonly NonIntegerLengthCase[] = Object.freeze([
  Object.freeze(['an object whose valueOf answers 1', () => createObjectLength([1])] as const),
  Object.freeze(['the string "1"', primitive('1')] as const),
  Object.freeze(['NaN', primitive(Number.NaN)] as const),
  Object.freeze(['-1', primitive(-1)] as const),
  Object.freeze(['1.5', primitive(1.5)] as const),
  Object.freeze(['Infinity', primitive(Number.POSITIVE_INFINITY)] as const),
]);
