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
 * Characters shown as nothing, or that change how the text around them is shown, in one class
 * (one precompiled test per id: it runs on every response id, call id and tool name):
 *
 * - C0 and C1 controls (`\p{Cc}`, as `CONTROL`, so that the display check needs no second scan);
 * - Unicode's default-ignorable code points: bidirectional marks, embeddings, overrides and
 *   isolates, zero-width spaces and joiners, the soft hyphen, variation selectors, the byte order
 *   mark, the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the tag characters of "ASCII
 *   smuggling"...;
 * - white space of every kind (`\p{White_Space}`, which holds every space separator `\p{Zs}`:
 *   the ASCII space, the no-break space, U+1680 OGHAM SPACE MARK, U+2000-U+200A, U+202F, U+205F,
 *   U+3000; and the line and paragraph separators): shown blank, `call_1` and `call_1` followed by
 *   a no-break space read alike;
 * - combining marks (`\p{M}`): drawn on the character before them, or over it, or as nothing
 *   (a precomposed `é` passes, `e` followed by U+0301 does not);
 * - characters that are not spaces but render blank: U+2800 BRAILLE PATTERN BLANK and U+1D159
 *   MUSICAL SYMBOL NULL NOTEHEAD.
 *
 * An id or name holding one can read as another in a log.
 */
const NOT_DISPLAY_SAFE =
  /[\p{Cc}\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Zs}\p{M}\u2800\u{1D159}]/u;

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
 * `isWellFormedIdentifier`, and no character shown as nothing, shown blank, or that changes how the
 * text around it is shown (`NOT_DISPLAY_SAFE`: Unicode's default-ignorable code points, such as
 * bidirectional overrides and isolates, zero-width characters, the soft hyphen, variation
 * selectors, tag characters, the byte order mark and the Hangul fillers; white space of every
 * kind, the ASCII space, the no-break space and the line and paragraph separators included;
 * combining marks; U+2800 BRAILLE PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD): for the
 * ids and tool names a provider response carries, which the audit log records as the provider sent
 * them, so that none reads as another there (`get_order` followed by U+202E and reversed text,
 * `call_1` followed by a no-break space or a braille blank, say). Provider ids and tool names are
 * ASCII letters, digits and `_-.:` (`call_…`, `fc_…`, `toolu_…`, Gemini's ids): they all pass.
 * Visible letters of any script pass too; look-alike letters (a Cyrillic `а` for a Latin `a`) are
 * not refused. Host identifiers (approval keys, owners) keep `isWellFormedIdentifier`'s rule:
 * stores may already hold such keys.
 */
export function isDisplaySafeIdentifier(value: unknown, maxLength: number): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= maxLength &&
    value.length <= MAX_STORABLE_IDENTIFIER_LENGTH &&
    // Controls included: this one test stands for `isWellFormedIdentifier`'s `CONTROL` test too.
    !NOT_DISPLAY_SAFE.test(value) &&
    isWellFormedText(value)
  );
}
