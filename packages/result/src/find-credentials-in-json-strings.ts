import type { JsonValue } from '@toolseal/contracts';
import { isCredentialKeyName } from '@toolseal/guard';
import { findInData } from './find-in-data.js';
import type { OutputViolation } from './output-violation.js';

// A string value that may be JSON text as a whole, after and before JSON's own whitespace: an
// object (`{...}`), an array (`[...]`) or a string literal (`"..."`: JSON text of JSON text,
// `JSON.stringify(JSON.stringify(response))`). Only such a string is parsed: a failed parse costs a
// thrown SyntaxError, and prose that merely starts with a quote (`"Hello," she said.`) is common.
const CLOSER_OF: Readonly<Record<string, string>> = { '{': '}', '[': ']', '"': '"' };
// The same seen in a JSON text holding the string: its opening quote, JSON's whitespace as its
// escapes, then `{`, `[` or an escaped quote. No match anywhere: no string of the value can be
// JSON text of an object, an array or a string.
const JSON_TEXT_IN_TEXT = /"(?: |\\[tnr])*(?:[{[]|\\")/;
// JSON inside JSON inside a string...: levels read before giving up, each unwrapped string literal
// one of them (each level's text is shorter than the one holding it, so the work stays within this
// many passes over the data).
const MAX_JSON_LEVELS = 4;
// The shortest value taken for a secret: shorter ones (`x`, `pw`, `none`) are examples or flags.
const MIN_SECRET_LENGTH = 8;
// What documentation writes instead of a secret: `<token>`, `{{api_key}}`, `${SECRET}`, `[redacted]`,
// `...`, `***`, `xxxx`, and the words of placeholders.
const PLACEHOLDER = /^[<{[($%].*[>}\])]$|\.\.\.|…|\*\*\*|x{4}|your|example|placeholder|redacted|changeme|change_me|dummy|sample|<|>/i;

/**
 * Where a string of `data` is, as a whole, the JSON text of an object or array in which a key a
 * credential rule flags (`password`, `client_secret`, `session_token`, `authorization`...) holds a
 * string that looks like a secret (8 characters or more, not a placeholder such as `<token>`,
 * `your-api-key` or `***`), at any depth and in JSON strings within it up to four levels; a string
 * that is, as a whole, a JSON string literal (the JSON text of JSON text) is read as its content,
 * each such unwrapping one of the four levels:
 * `credential_value` at the string's contract-safe pointer under `prefix`. A handler that returns
 * the downstream's whole object as a string (`JSON.stringify(response)`) would otherwise pass its
 * password through the contract's exact schema and the recursive key rule (spec 000: "reject
 * credentials ... recursively"). Control and business names in such a string (`tenant`,
 * `receipt`, `recovery`) are text, read by the model inside the data block, as is a JSON fragment
 * inside prose; API documentation's examples with placeholders pass. `jsonText` (a JSON text of
 * `data`) lets the common case skip the walk; `null` walks.
 */
export function findCredentialsInJsonStrings(data: JsonValue, jsonText: string | null, prefix = '/data'): OutputViolation[] {
  if (jsonText !== null && !JSON_TEXT_IN_TEXT.test(jsonText)) return [];
  return findInData(data, prefix, 'credential_value', (value, isKey) => !isKey && typeof value === 'string' && jsonTextHoldsCredential(value, 1));
}

function looksLikeSecret(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  return trimmed.length >= MIN_SECRET_LENGTH && !PLACEHOLDER.test(trimmed);
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * Whether the string literal `text[first..last]` (both quotes) may be the JSON text of JSON text:
 * its content starts, after JSON whitespace written raw or escaped, with `{`, `[` or an escaped
 * quote, and no unescaped quote comes before the closing one. Quoted prose (`"Yes," he said.
 * "No."`) fails here in one pass, instead of in a `JSON.parse` that throws (about 12 µs each).
 */
function mayBeEncodedJsonText(text: string, first: number, last: number): boolean {
  let index = first + 1;
  for (;;) {
    const unit = text.charCodeAt(index);
    if (unit === 0x20) index += 1;
    else if (unit === 0x5c && ESCAPED_WHITESPACE.has(text.charCodeAt(index + 1))) index += 2;
    else break;
  }
  const opening = text.charCodeAt(index);
  if (!(opening === 0x7b || opening === 0x5b || (opening === 0x5c && text.charCodeAt(index + 1) === 0x22))) return false;
  for (; index < last; index++) {
    const unit = text.charCodeAt(index);
    if (unit === 0x5c) index += 1;
    else if (unit === 0x22) return false;
  }
  return true;
}

// `n`, `t`, `r`: the letters of JSON's whitespace escapes.
const ESCAPED_WHITESPACE: ReadonlySet<number> = new Set([0x6e, 0x74, 0x72]);

function jsonTextHoldsCredential(text: string, level: number): boolean {
  let first = 0;
  while (first < text.length && isJsonWhitespace(text.charCodeAt(first))) first++;
  let last = text.length - 1;
  while (last > first && isJsonWhitespace(text.charCodeAt(last))) last--;
  const closer = CLOSER_OF[text.charAt(first)];
  if (closer === undefined || last === first || text.charAt(last) !== closer) return false;
  if (closer === '"' && !mayBeEncodedJsonText(text, first, last)) return false;
  let parsed: unknown;
  try {
    // Iterative in V8: no nesting overflows the stack. Duplicate keys and `__proto__` are own
    // keys of the result, so every member the text holds is seen.
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  // A string literal: its content is read as the next level (strictly shorter than `text`).
  if (typeof parsed === 'string') return level < MAX_JSON_LEVELS && jsonTextHoldsCredential(parsed, level + 1);
  if (typeof parsed !== 'object' || parsed === null) return false;
  const stack: unknown[] = [parsed];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (typeof value === 'string') {
      if (level < MAX_JSON_LEVELS && jsonTextHoldsCredential(value, level + 1)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value)) {
        if (isCredentialKeyName(key) && looksLikeSecret(member)) return true;
        stack.push(member);
      }
    }
  }
  return false;
}
