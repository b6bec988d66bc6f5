import { isCredentialKeyName, normalizeKeyName } from '@toolseal/guard';
import { revealTagText } from './reveal-tag-text.js';
import type { RegisteredTool } from './tool-registry.js';

/**
 * What a tool's key scan makes of a key name: `'credential'` for a name a credential rule of the
 * guard or the tool's `sensitive_keys.extra` flags, or a look-alike of one (see `judgeOutputKey`);
 * `'control'` for a name the scan flags for any other reason (a control or business name of the
 * boundary, such as `tenant`, `role` or `subject`, or a name that is not ASCII and reads as no
 * credential name).
 */
export type OutputKeyVerdict = 'credential' | 'control';

interface ToolVerdicts {
  /** The tool's `sensitive_keys.extra`, normalized as the scan compares them. */
  readonly extra: ReadonlySet<string>;
  readonly verdicts: Map<string, OutputKeyVerdict | null>;
}

// Verdicts kept per tool (names repeat across calls: `q`, `page`, `password`), at most this many
// names each; past it a name is judged again each time.
const MAX_JUDGED_NAMES = 512;
const judgedNames = new WeakMap<RegisteredTool, ToolVerdicts>();

/**
 * The verdict of `tool`'s key scan (`RegisteredTool.scanSensitiveKeys`, the scan every key of
 * `data` goes through: the guard's list, the tool's `sensitive_keys.extra` added and its
 * `sensitive_keys.allow` lifted) on the name `key`, wherever the name appears: a key of `data`, a
 * link's parameter name, a key inside a string of `data` holding JSON. `null` when the scan does not
 * flag it; otherwise whether a credential rule or the tool's `extra` flags it (`'credential'`) or
 * another rule (`'control'`). A name the scan refuses for not being ASCII (`non_ascii_key`) is a
 * credential name when its look-alike reading is one: TAG characters read as the ASCII they mirror,
 * accents and other marks (variation selectors included) dropped, and the Cyrillic, Greek,
 * Armenian and Latin letters that look like a Latin letter read as that letter (`pаssword` with a
 * Cyrillic `а`, `pàssword`, `арі_кеу` in Cyrillic letters only), and any character that is neither
 * a letter nor a digit a separator between words, as `_` and `-` are (`client–secret` with an en
 * dash, `access·token`, `password🔑`). A word of another language stays what it is (`prénom`,
 * `名前`, and `пароль`, which means password: names are read in English only), and beside English
 * words it is set aside (`password (пароль)` reads as `password`).
 * A credential name is never `null`: `sensitive_keys.allow` cannot lift one (`isLiftableKeyName`).
 */
export function judgeOutputKey(tool: RegisteredTool, key: string): OutputKeyVerdict | null {
  const judged = verdictsOf(tool);
  const known = judged.verdicts.get(key);
  if (known !== undefined) return known;
  const verdict = judgeKey(tool, judged.extra, key);
  if (judged.verdicts.size < MAX_JUDGED_NAMES) judged.verdicts.set(key, verdict);
  return verdict;
}

/**
 * `judgeOutputKey(tool, key) === 'credential'`, without running the tool's scan in the common case
 * (a scan per distinct name cost about 9 µs: a string of `data` holding JSON with 100,000 distinct
 * keys took a second). A credential name is flagged by every tool's scan (`sensitive_keys.allow`
 * cannot lift one), so the name alone decides it; a name the scan reads as ASCII that is neither a
 * credential name nor one of the tool's `extra` names (which match exactly) cannot be one; a name
 * it refuses for not being ASCII is one only when its look-alike reading is. The rest (a name of
 * `extra`) is judged by the scan.
 */
export function isCredentialOutputKey(tool: RegisteredTool, key: string): boolean {
  if (isCredentialKeyName(key)) return true;
  const extra = verdictsOf(tool).extra;
  const normalized = normalizeKeyName(key);
  if (normalized !== null) return extra.has(normalized) && judgeOutputKey(tool, key) === 'credential';
  const reading = readLookAlikes(key);
  if (isCredentialKeyName(reading)) return true;
  const normalizedReading = normalizeKeyName(reading);
  return normalizedReading !== null && extra.has(normalizedReading) && judgeOutputKey(tool, key) === 'credential';
}

function verdictsOf(tool: RegisteredTool): ToolVerdicts {
  let judged = judgedNames.get(tool);
  if (judged === undefined) {
    const extra = new Set<string>();
    for (const name of tool.sensitiveExtra) {
      // The registry built the scan from these names, which refuses one that does not normalize.
      const normalized = normalizeKeyName(name);
      if (normalized !== null) extra.add(normalized);
    }
    judged = { extra, verdicts: new Map() };
    judgedNames.set(tool, judged);
  }
  return judged;
}

/** What the tool's scan matched on `name`, or `null` when it does not flag it. */
function flaggedAs(tool: RegisteredTool, name: string): string | null {
  // A computed key defines an own property, `__proto__` included.
  const hit = tool.scanSensitiveKeys({ [name]: null }, 1)[0];
  return hit === undefined ? null : hit.matched;
}

function judgeKey(tool: RegisteredTool, extra: ReadonlySet<string>, key: string): OutputKeyVerdict | null {
  const matched = flaggedAs(tool, key);
  if (matched === null) return null;
  // An exact hit reports the normalized name: an `extra` name matches as itself.
  if (isCredentialKeyName(key) || extra.has(matched)) return 'credential';
  if (matched === 'non_ascii_key') {
    const reading = readLookAlikes(key);
    const readingMatched = flaggedAs(tool, reading);
    if (readingMatched !== null && (isCredentialKeyName(reading) || extra.has(readingMatched))) return 'credential';
  }
  return 'control';
}

// Letters drawn like a Latin letter in common fonts, from Unicode's confusables data (a short list:
// the letters of the Cyrillic, Greek, Armenian and Coptic alphabets and the Latin letters beyond
// ASCII, small capitals included, that a reader takes for a-z; NFKC already reads fullwidth and
// mathematical letters as ASCII).
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a', в: 'b', с: 'c', ԁ: 'd', е: 'e', һ: 'h', і: 'i', ј: 'j', к: 'k', ӏ: 'l', м: 'm', н: 'h', о: 'o', р: 'p',
  ԛ: 'q', ѕ: 's', т: 't', ԝ: 'w', х: 'x', у: 'y', ү: 'y', г: 'r', п: 'n',
  А: 'a', В: 'b', С: 'c', Е: 'e', Н: 'h', І: 'i', Ј: 'j', К: 'k', М: 'm', О: 'o', Р: 'p', Ԛ: 'q', Ѕ: 's',
  Т: 't', Ԝ: 'w', Х: 'x', Ү: 'y',
  // Greek
  α: 'a', ϲ: 'c', ε: 'e', ι: 'i', ϳ: 'j', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', γ: 'y',
  Α: 'a', Β: 'b', Ε: 'e', Ζ: 'z', Η: 'h', Ι: 'i', Κ: 'k', Μ: 'm', Ν: 'n', Ο: 'o', Ρ: 'p', Τ: 't', Χ: 'x', Υ: 'y',
  // Armenian
  ց: 'g', հ: 'h', ո: 'n', օ: 'o', զ: 'q', ս: 'u',
  // Coptic
  ⲟ: 'o', ⲣ: 'p', ⲥ: 'c',
  // Latin beyond ASCII, the small capitals included
  ɑ: 'a', ɡ: 'g', ı: 'i', ɩ: 'i', ȷ: 'j', ʏ: 'y', ᴏ: 'o',
  ᴀ: 'a', ʙ: 'b', ᴄ: 'c', ᴅ: 'd', ᴇ: 'e', ɢ: 'g', ʜ: 'h', ɪ: 'i', ᴊ: 'j', ᴋ: 'k', ʟ: 'l', ᴍ: 'm', ɴ: 'n',
  ᴘ: 'p', ʀ: 'r', ꜱ: 's', ᴛ: 't', ᴜ: 'u', ᴠ: 'v', ᴡ: 'w', ᴢ: 'z',
};
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');
// Marks (accents, and the variation selectors, which are marks too), the TAG characters
// `revealTagText` leaves (U+E0000 to U+E001F, the cancel tag U+E007F), and what the guard's
// `normalizeKeyName` drops as invisible (format characters and the other default-ignorable code
// points: a zero-width space, a soft hyphen, the Hangul filler, which is a letter to Unicode):
// nothing a reader sees, so nothing that splits a word either.
const MARKS_TAGS_AND_INVISIBLES = /[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}\u{E0000}-\u{E007F}]/gu;
// What separates the words of a name: every character that is neither a letter nor a digit, in any
// script, as `_`, `-` and a space do in ASCII (the guard's `normalizeKeyName` drops those): an en
// dash, the hyphens U+2010 and U+2011, a middle dot, an emoji, brackets. `client–secret` is then
// read as `client-secret` is, not as a word of another language. A class, linear in the key.
const SEPARATORS = /[^\p{L}\p{N}]+/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const WORD_SEPARATOR = '_';

/**
 * `key` as a reader takes it: TAG characters as their ASCII, marks and invisible characters
 * dropped, look-alike letters as Latin ones, and every other character that is no letter or digit
 * a separator between words. A word still not ASCII then is a word of another language, which
 * names are not read in (`пароль`, `名前`): it is set aside, so that a name glossed in another
 * language (`password (пароль)`, `名前_token`) reads as its English words, and one with none reads
 * as `""`, no name. Only keys that are not ASCII come here: ASCII ones take the fast path.
 */
function readLookAlikes(key: string): string {
  const reading = revealTagText(key)
    .normalize('NFKD')
    .replace(MARKS_TAGS_AND_INVISIBLES, '')
    .replace(LOOK_ALIKE, (letter) => LOOK_ALIKES[letter] ?? letter)
    .replace(SEPARATORS, WORD_SEPARATOR);
  if (!NON_ASCII.test(reading)) return reading;
  return reading
    .split(WORD_SEPARATOR)
    .filter((word) => !NON_ASCII.test(word))
    .join(WORD_SEPARATOR);
}
