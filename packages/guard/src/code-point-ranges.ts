// Internal to @toolseal/guard: sets of code points as sorted, disjoint, inclusive ranges, flattened
// `[low0, high0, low1, high1, ...]`, for the pattern parser and matcher (`compilePattern`).

/** The largest code point; in Unicode mode a pattern and its input are sequences of these. */
export const MAX_CODE_POINT = 0x10ffff;

/** `[low, high]` pairs in any order, overlapping or touching, as one sorted, merged range list. */
export function normalizeRanges(pairs: readonly number[]): number[] {
  const order: [number, number][] = [];
  for (let index = 0; index + 1 < pairs.length; index += 2) order.push([pairs[index]!, pairs[index + 1]!]);
  order.sort((left, right) => left[0] - right[0]);
  const merged: number[] = [];
  for (const [low, high] of order) {
    const last = merged.length - 1;
    if (last > 0 && low <= merged[last]! + 1) merged[last] = Math.max(merged[last]!, high);
    else merged.push(low, high);
  }
  return merged;
}

/** Every code point not in `ranges` (a normalized list). */
export function complementRanges(ranges: readonly number[]): number[] {
  const complement: number[] = [];
  let next = 0;
  for (let index = 0; index < ranges.length; index += 2) {
    if (ranges[index]! > next) complement.push(next, ranges[index]! - 1);
    next = ranges[index + 1]! + 1;
  }
  if (next <= MAX_CODE_POINT) complement.push(next, MAX_CODE_POINT);
  return complement;
}

/** Whether `codePoint` is in `ranges` (a normalized list): a binary search over the pairs. */
export function rangesContain(ranges: readonly number[], codePoint: number): boolean {
  let low = 0;
  let high = ranges.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (codePoint < ranges[2 * middle]!) high = middle - 1;
    else if (codePoint > ranges[2 * middle + 1]!) low = middle + 1;
    else return true;
  }
  return false;
}

// The class escapes without the `i` flag, exactly as ECMAScript lists them
// (https://tc39.es/ecma262/#sec-compiletocharset, CharacterClassEscape): `\d` is ASCII digits only,
// `\w` the 63 ASCII word characters (Unicode letters are not word characters), and `\s` WhiteSpace
// (tab, vertical tab, form feed, space, no-break space, U+FEFF and the Zs category) plus
// LineTerminator (https://tc39.es/ecma262/#sec-white-space, #sec-line-terminators).
export const DIGIT_RANGES: readonly number[] = Object.freeze([0x30, 0x39]);
export const WORD_RANGES: readonly number[] = Object.freeze([0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);
export const SPACE_RANGES: readonly number[] = Object.freeze(
  normalizeRanges([0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff]),
);
/** What `.` matches without the `s` flag: every code point but the four line terminators. */
export const DOT_RANGES: readonly number[] = Object.freeze(complementRanges([0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029]));
