import { isWellFormedText } from '@toolseal/guard';

/** Strings RFC 8785 writes between quotes as they are: no quote, backslash, control or surrogate. */
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * RFC 8785 text of a well-formed string: RFC 8785 section 3.2.2.2 serializes strings exactly as
 * ECMAScript's `JSON.stringify` does. `null` for a non-string or a lone surrogate (which RFC 8785
 * refuses and `JSON.stringify` would escape).
 */
export function canonicalString(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (VERBATIM.test(value)) return `"${value}"`;
  return isWellFormedText(value) ? JSON.stringify(value) : null;
}
