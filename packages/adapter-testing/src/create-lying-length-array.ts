/** An array whose `length` lies, and how often it was read (`createLyingLengthArray`). */
export interface LyingLengthArray<Item> {
  /**
   * A Proxy over an empty array: `Array.isArray` answers `true`, `length` answers the given
   * lengths in turn (read as `array.length` or through its descriptor, `readOwnData(array,
   * 'length')`), and every index holds the item, read through `[index]`, `index in array` or
   * `Object.getOwnPropertyDescriptor` (`readOwnData`). Only a Proxy can do either.
   */
  readonly array: Item[];
  /** How many times `length` was read so far, either way. */
  lengthReads(): number;
  /** How many times an index was read so far, by any of the three ways above. */
  indexReads(): number;
}

// A canonical array index: `0`, or digits without a leading zero. `'01'` and `'-0'` are plain keys.
const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

function isArrayIndex(property: string | symbol): boolean {
  return typeof property === 'string' && ARRAY_INDEX.test(property);
}

/**
 * An array whose `length` answers `lengths[0]` on the first read, `lengths[1]` on the second, and
 * the last of `lengths` on every read after that, and whose every index holds `item`; counts both
 * kinds of read. For testing that code given an untrusted array reads its length once, as a plain
 * number within its cap, and walks no further than that one answer: a parser that checks one
 * reading and loops over another, or converts a length that is an object, is caught by the counts.
 *
 * `lengths` may hold anything (`NON_INTEGER_LENGTHS` lists the answers no real array gives). Throws
 * a `TypeError` when it is empty: the array would have nothing to answer.
 */
export function createLyingLengthArray<Item>(item: Item, lengths: readonly unknown[]): LyingLengthArray<Item> {
  if (lengths.length === 0) throw new TypeError('createLyingLengthArray: lengths must hold at least one answer');
  const answers = [...lengths];
  let lengthReads = 0;
  let indexReads = 0;
  const nextLength = (): unknown => {
    const answer = answers[Math.min(lengthReads, answers.length - 1)];
    lengthReads++;
    return answer;
  };
  const array = new Proxy<Item[]>([], {
    get(target, property, receiver) {
      if (property === 'length') return nextLength();
      if (!isArrayIndex(property)) return Reflect.get(target, property, receiver);
      indexReads++;
      return item;
    },
    has(target, property) {
      if (!isArrayIndex(property)) return Reflect.has(target, property);
      indexReads++;
      return true;
    },
    getOwnPropertyDescriptor(target, property) {
      // `length` lies here too (`readOwnData(array, 'length')`), as any Proxy may: the target's own
      // `length` is non-configurable but writable, so a descriptor with another value is allowed.
      if (property === 'length') return { value: nextLength(), writable: true, enumerable: false, configurable: false };
      if (!isArrayIndex(property)) return Reflect.getOwnPropertyDescriptor(target, property);
      indexReads++;
      // Configurable, as the target (an extensible empty array) does not hold it: a Proxy may
      // report such a property only so.
      return { value: item, writable: true, enumerable: true, configurable: true };
    },
  });
  return { array, lengthReads: () => lengthReads, indexReads: () => indexReads };
}
