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
 * Printable ASCII without the space, `!` (U+0021) to `~` (U+007E), and nothing else: what every
 * provider id and tool name is made of (OpenAI's `call_…`, `fc_…`, `resp_…` and tool names of
 * `^[a-zA-Z0-9_-]{1,64}$`, Anthropic's `toolu_…` and `msg_…` under `^[a-zA-Z0-9_-]+$`, Gemini's ids
 * and `.`/`:` names). An allow-list, so nothing outside it needs naming: controls, white space,
 * characters shown blank or as nothing (format characters, default-ignorables, private use,
 * unassigned code points, noncharacters, U+FFFC), combining marks, right-to-left letters and lone
 * surrogates are all refused by the one precompiled test. Run after the length checks, so it reads
 * at most 256 code units.
 */
const DISPLAY_SAFE = /^[\x21-\x7e]+$/;

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
 * True for a string of 1 to `maxLength` (at most 256) characters, each printable ASCII other than
 * the space (`!` to `~`, U+0021 to U+007E: `DISPLAY_SAFE`): for the ids and tool names a provider
 * response carries (response ids, call ids, tool names, OpenAI item ids), which the audit log
 * records as the provider sent them, so that no invisible or other-script character makes one read
 * as another there (ASCII's own look-alikes, `call_1` and `call_l`, remain). Every documented
 * provider id and tool-name grammar is ASCII (`call_…`, `fc_…`, `resp_…`, `toolu_…`, `msg_…`,
 * Gemini's ids, names of `^[a-zA-Z0-9_-]{1,64}$` and the like, and every name a registry accepts,
 * `^[A-Za-z][A-Za-z0-9_-]{0,63}$`): they all pass. Everything else is refused, so no list of
 * invisible characters can be incomplete: controls, the space and every other white space, the
 * no-break space, U+2800 BRAILLE PATTERN BLANK, zero-width and bidirectional format characters,
 * tag characters, private-use (`call_1` followed by U+E000 prints as `call_1`), unassigned and
 * noncharacter code points, U+FFFC, combining marks, and letters of every other script (a
 * right-to-left one reorders what follows it: `א_12_34` displays like `34_12_א`; a Cyrillic `а`
 * reads as a Latin `a`). Implies `isWellFormedIdentifier` (no control, no lone surrogate, so every
 * accepted id can be stored and digested). Host identifiers (approval keys, owners) keep
 * `isWellFormedIdentifier`'s rule: stores may already hold such keys.
 */
export function isDisplaySafeIdentifier(value: unknown, maxLength: number): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= maxLength &&
    value.length <= MAX_STORABLE_IDENTIFIER_LENGTH &&
    DISPLAY_SAFE.test(value)
  );
}
