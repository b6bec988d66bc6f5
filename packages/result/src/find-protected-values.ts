import type { JsonValue } from '@toolseal/contracts';
import { findInData } from './find-in-data.js';
import { revealTagText } from './reveal-tag-text.js';
import type { OutputViolation } from './output-violation.js';

/**
 * Shortest protected value searched for. Shorter ones (a tenant named `a` or `acme`) occur in
 * ordinary words and would refuse harmless data; identifiers worth protecting (subject ids, UUID
 * operation ids, idempotency keys, receipts) are longer.
 */
export const MIN_PROTECTED_VALUE_LENGTH = 6;


/**
 * `text` lowercased with the final sigma folded into `σ`: `toLowerCase` writes a capital sigma as
 * `ς` at the end of a word and as `σ` elsewhere, so a value ending in `Σ` lowercases differently
 * from the same letters followed by more text, and would not be found there. Every other mapping of
 * `toLowerCase` depends on the character alone.
 */
function foldCase(text: string): string {
  const lower = revealTagText(text).toLowerCase();
  return lower.includes('ς') ? lower.replaceAll('ς', 'σ') : lower;
}

/**
 * The protected values worth searching for, lowercased (`foldCase`): strings of at least
 * `MIN_PROTECTED_VALUE_LENGTH` characters, without repeats. `null`s are skipped.
 */
export function protectedNeedles(values: readonly (string | null | undefined)[]): string[] {
  const needles: string[] = [];
  for (const value of values) {
    if (typeof value !== 'string' || value.length < MIN_PROTECTED_VALUE_LENGTH) continue;
    const needle = foldCase(value);
    if (!needles.includes(needle)) needles.push(needle);
  }
  return needles;
}

/** Whether `text` contains one of `needles` (from `protectedNeedles`), compared as `findProtectedValues` compares strings. */
export function containsProtectedValue(text: string, needles: readonly string[]): boolean {
  if (needles.length === 0) return false;
  const folded = foldCase(text);
  return needles.some((needle) => folded.includes(needle));
}

/**
 * Where string values of `data` contain a protected value of the call (spec 000: the model
 * projection carries no principal identifiers, internal ids or receipts), compared exactly but
 * case-insensitively (`toLowerCase`, the final sigma folded, TAG characters read as the ASCII they
 * mirror, no Unicode normalization), and where a number of `data` is
 * one (its `Number::toString` text equal to the value: numeric ids). `canonicalData` is the RFC 8785
 * text of `data`: one pass over it decides the common case (no value anywhere in the text, not even
 * in a key or a number); only a hit walks the values to find and report the strings, as
 * `protected_value` at a contract-safe pointer under `prefix`. Keys are never searched: the exact
 * output schema already fixes every key. `canonicalData` may also be any text that contains the RFC
 * 8785 text of `data` (the pass only rules values out), or `null` when there is none: then every
 * string is walked.
 */
export function findProtectedValues(
  data: JsonValue,
  canonicalData: string | null,
  needles: readonly string[],
  prefix = '/data',
): OutputViolation[] {
  if (needles.length === 0) return [];
  if (canonicalData !== null) {
    // TAG characters read as the ASCII they mirror, as the walk reads them (`foldCase`).
    const text = revealTagText(canonicalData).toLowerCase();
    // A plain ASCII value appears in the lowercased text exactly where it appears in a lowercased
    // string. One with `"`, `\` or a control (escaped in the text) or beyond ASCII (the final sigma
    // lowercases by context) is decided by the walk alone.
    if (!needles.some((needle) => !isPlainAscii(needle) || text.includes(needle))) return [];
  }
  return findInData(data, prefix, 'protected_value', (value, isKey) => {
    if (isKey) return false;
    if (typeof value === 'number') {
      // A numeric id (a subject `900100200` in `customer_no`) is the value itself, written as the
      // canonical text writes it: equal, never a substring (an amount of 1000000 is not the id 100000).
      return needles.includes(String(value));
    }
    const lower = foldCase(value);
    return needles.some((needle) => lower.includes(needle));
  });
}

function isPlainAscii(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit < 0x20 || unit > 0x7e || unit === 0x22 || unit === 0x5c) return false;
  }
  return true;
}
