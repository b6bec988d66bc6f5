import { isWellFormedText } from '@toolseal/guard';

/**
 * Longest identifier any store accepts (`MAX_IDENTIFIER_LENGTH` of `@toolseal/audit`): no
 * identifier longer than this is ever accepted, whatever `maxLength` a caller passes.
 */
export const MAX_STORABLE_IDENTIFIER_LENGTH = 256;
/** Longest provider id (response or call) accepted, as `ProviderContext` allows. */
export const MAX_PROVIDER_ID_LENGTH = 256;
/** Longest tool name accepted before the registry lookup; no provider allows more than 128. */
export const MAX_TOOL_NAME_LENGTH = 256;

/** C0 controls (NUL included), DEL and C1 controls: Unicode general category Cc. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Characters shown as nothing, or that change how the text around them is shown: Unicode's
 * default-ignorable code points (bidirectional marks, embeddings, overrides and isolates,
 * zero-width spaces and joiners, the soft hyphen, variation selectors, the byte order mark, Hangul
 * fillers, the tag characters of "ASCII smuggling"...), and the line and paragraph separators. An
 * id or name holding one can read as another in a log.
 */
const INVISIBLE_FORMAT = /[\p{Default_Ignorable_Code_Point}\u2028\u2029]/u;

/**
 * True for a string of 1 to `maxLength` (at most 256) UTF-16 code units with no control character
 * (C0, DEL, C1) and no lone surrogate.
 *
 * It is at least as strict as the stores' `checkIdentifier` (`@toolseal/audit`), which refuses
 * NUL (PostgreSQL `text` cannot hold it), lone surrogates (no UTF-8 form, and RFC 8785 cannot
 * canonicalize them) and more than 256 characters: every id this accepts can be bound into a digest
 * and written to the audit log, so a call is refused here, before any gate runs, rather than
 * executed and then found unauditable. A test cross-checks the two predicates.
 */
export function isWellFormedIdentifier(value: unknown, maxLength: number): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= maxLength &&
    value.length <= MAX_STORABLE_IDENTIFIER_LENGTH &&
    !CONTROL.test(value) &&
    isWellFormedText(value)
  );
}

/**
 * `isWellFormedIdentifier`, and no character shown as nothing or that changes how the text around
 * it is shown (Unicode's default-ignorable code points: bidirectional overrides and isolates,
 * zero-width characters, the soft hyphen, variation selectors, tag characters, the byte order
 * mark...; and the line and paragraph separators): for the ids and tool names a provider response
 * carries, which the audit log records as the provider sent them, so that none reads as another
 * there (`get_order` followed by U+202E and reversed text, say). Host identifiers (approval keys,
 * owners) keep `isWellFormedIdentifier`'s rule: stores may already hold such keys.
 */
export function isDisplaySafeIdentifier(value: unknown, maxLength: number): value is string {
  return isWellFormedIdentifier(value, maxLength) && !INVISIBLE_FORMAT.test(value);
}
