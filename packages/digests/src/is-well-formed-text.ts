// `canonicalStringOrUndefined` is exported by the package as `canonicalString`; the rest is internal.

const nativeIsWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;
// In unicode mode a valid surrogate pair is one astral code point, so only lone surrogates match.
const LONE_SURROGATE = /\p{Cs}/u;
// Not in unicode mode: the class matches single UTF-16 code units, so any surrogate (paired or not)
// fails the test, as do the quotation mark, the reverse solidus and the controls JSON escapes.
const NOTHING_TO_ESCAPE = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * True when `text` holds no unpaired UTF-16 surrogate, so it has a UTF-8 encoding and
 * `JSON.stringify(text)` is its RFC 8785 form. `String.prototype.isWellFormed` (native since
 * Node 20) where the runtime has it, a regular expression otherwise.
 */
export function isWellFormedText(text: string): boolean {
  return nativeIsWellFormed === undefined ? !LONE_SURROGATE.test(text) : nativeIsWellFormed.call(text);
}

/**
 * The RFC 8785 text of a string value (`JSON.stringify` escaping, which RFC 8785 §3.2.2.2 adopts),
 * or `undefined` when `value` is not a string or holds a lone surrogate: the caller then takes
 * the general `canonicalize` path, which throws the precise error. Exported as `canonicalString`,
 * for code that writes canonical texts of a known shape member by member.
 */
export function canonicalStringOrUndefined(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Most members (ids, revisions, hex digests) need no escape and hold no surrogate at all: quoted
  // as they are. Measured about half the cost of JSON.stringify for such short strings.
  if (NOTHING_TO_ESCAPE.test(value)) return '"' + value + '"';
  return isWellFormedText(value) ? JSON.stringify(value) : undefined;
}
