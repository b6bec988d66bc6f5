import type { JsonValue } from '@toolseal/contracts';
import { findInData } from './find-in-data.js';
import { isCredentialOutputKey } from './judge-output-key.js';
import type { OutputViolation } from './output-violation.js';
import type { RegisteredTool } from './tool-registry.js';

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
 * Where a string of `data` is, as a whole, the JSON text of an object or array in which a key that
 * `tool`'s key scan reads as a credential's (`judgeOutputKey`: `password`, `client_secret`,
 * `session_token`, `authorization`, a name the tool's `sensitive_keys.extra` adds, a look-alike of
 * one such as `pаssword` with a Cyrillic `а`; never a name its `sensitive_keys.allow` lifts) holds a
 * string that looks like a secret (8 characters or more, not a placeholder such as `<token>`,
 * `your-api-key` or `***`), or an array (of arrays) holding one, at any depth and in JSON strings
 * within it up to four levels; a string that is, as a whole, a JSON string literal (the JSON text of
 * JSON text) is read as its content, each such unwrapping one of the four levels:
 * `credential_value` at the string's contract-safe pointer under `prefix`. A handler that returns
 * the downstream's whole object as a string (`JSON.stringify(response)`) would otherwise pass its
 * password through the contract's exact schema and the recursive key rule (spec 000: "reject
 * credentials ... recursively"). Every member the text holds is read, as the model reads the text:
 * a duplicate key does not hide the one before it. Control and business names in such a string
 * (`tenant`, `receipt`, `role`), which the key scan refuses in `data`, are text, read by the model
 * inside the data block, as is a JSON fragment inside prose; API documentation's examples with
 * placeholders pass. `jsonText` (a JSON text of `data`) lets the common case skip the walk; `null`
 * walks.
 */
export function findCredentialsInJsonStrings(tool: RegisteredTool, data: JsonValue, jsonText: string | null, prefix = '/data'): OutputViolation[] {
  if (jsonText !== null && !JSON_TEXT_IN_TEXT.test(jsonText)) return [];
  return findInData(data, prefix, 'credential_value', (value, isKey) => !isKey && typeof value === 'string' && jsonTextHoldsCredential(tool, value, 1));
}

function looksLikeSecret(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length >= MIN_SECRET_LENGTH && !PLACEHOLDER.test(trimmed);
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * Whether the string literal `text[first..last]` (both quotes) may be the JSON text of JSON text:
 * its content starts, after JSON whitespace written raw or escaped, with `{`, `[` or a quote,
 * written escaped or as a `\u` escape (`\u007b`), and no unescaped quote comes before the closing
 * one. Quoted prose (`"Yes," he said.
 * "No."`) fails here in one pass, instead of in a `JSON.parse` that throws (about 12 µs each).
 */
function mayBeEncodedJsonText(text: string, first: number, last: number): boolean {
  let index = first + 1;
  let opening: number;
  for (;;) {
    const unit = text.charCodeAt(index);
    if (unit === 0x20) {
      index += 1;
      continue;
    }
    if (unit !== 0x5c) {
      opening = unit;
      break;
    }
    const escaped = text.charCodeAt(index + 1);
    if (ESCAPED_WHITESPACE.has(escaped)) {
      index += 2;
      continue;
    }
    // `\"`, or a `\u` escape of the same characters (`\u007b` is `{`): the content is what counts.
    const decoded = escaped === 0x22 ? 0x22 : escaped === 0x75 ? hexEscapeAt(text, index + 2) : -1;
    if (decoded === 0x20 || decoded === 0x09 || decoded === 0x0a || decoded === 0x0d) {
      index += 6;
      continue;
    }
    opening = decoded;
    break;
  }
  if (!(opening === 0x7b || opening === 0x5b || opening === 0x22)) return false;
  for (; index < last; index++) {
    const unit = text.charCodeAt(index);
    if (unit === 0x5c) index += 1;
    else if (unit === 0x22) return false;
  }
  return true;
}

/** The code unit of the four hex digits at `text[index..index + 3]`, or -1. */
function hexEscapeAt(text: string, index: number): number {
  let value = 0;
  for (let offset = 0; offset < 4; offset++) {
    const digit = HEX_DIGIT.indexOf(text.charAt(index + offset).toLowerCase());
    if (digit < 0 || index + offset >= text.length) return -1;
    value = value * 16 + digit;
  }
  return value;
}

const HEX_DIGIT = '0123456789abcdef';

// `n`, `t`, `r`: the letters of JSON's whitespace escapes.
const ESCAPED_WHITESPACE: ReadonlySet<number> = new Set([0x6e, 0x74, 0x72]);

function jsonTextHoldsCredential(tool: RegisteredTool, text: string, level: number): boolean {
  let first = 0;
  while (first < text.length && isJsonWhitespace(text.charCodeAt(first))) first++;
  let last = text.length - 1;
  while (last > first && isJsonWhitespace(text.charCodeAt(last))) last--;
  const closer = CLOSER_OF[text.charAt(first)];
  if (closer === undefined || last === first || text.charAt(last) !== closer) return false;
  if (closer === '"' && !mayBeEncodedJsonText(text, first, last)) return false;
  let parsed: unknown;
  try {
    // Iterative in V8: no nesting overflows the stack. It decides whether the text is JSON; the
    // members are read from the text itself (`membersHoldCredential`), since the parsed value
    // keeps only the last of duplicate keys.
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  // A string literal: its content is read as the next level (strictly shorter than `text`).
  if (typeof parsed === 'string') return level < MAX_JSON_LEVELS && jsonTextHoldsCredential(tool, parsed, level + 1);
  if (typeof parsed !== 'object' || parsed === null) return false;
  return membersHoldCredential(tool, text, first, last, level);
}

// What the value being read sits in: an object, an array, or an array that a credential key holds
// (directly or through arrays: `{"recovery_codes": ["..."]}`).
const IN_OBJECT = 0;
const IN_ARRAY = 1;
const IN_CREDENTIAL_ARRAY = 2;

/**
 * Whether the JSON text `text[first..last]` of an object or array (`JSON.parse` accepted it) holds
 * a secret-looking string under a credential key, or JSON text holding one at the next level. Reads
 * the tokens of the text, as the model reads them, in one pass: every member counts, a duplicate
 * key's first value and `__proto__` included. Iterative; only a string with an escape is decoded
 * by `JSON.parse`.
 */
function membersHoldCredential(tool: RegisteredTool, text: string, first: number, last: number, level: number): boolean {
  const open: number[] = [];
  // The next string of an object is a key (after `{` or `,`), and whether the member being read
  // has a credential key.
  let readingKey = false;
  let credentialMember = false;
  // The next quote and backslash at or after where they were last looked for, kept until the walk
  // passes them: each character is searched once for each, however many escapes a string holds.
  let nextQuote = -1;
  let nextEscape = -1;
  for (let index = first; index <= last; index++) {
    const unit = text.charCodeAt(index);
    if (unit === 0x22) {
      let end = index + 1;
      let escaped = false;
      for (;;) {
        // The text is JSON: every string closes.
        if (nextQuote < end) nextQuote = text.indexOf('"', end);
        if (nextEscape < end) {
          nextEscape = text.indexOf('\\', end);
          if (nextEscape === -1) nextEscape = text.length;
        }
        if (nextEscape > nextQuote) break;
        // An escape (`\"`, `\\`, `\n`, `\u0041`...): its second character is never the closing quote.
        escaped = true;
        end = nextEscape + 2;
      }
      end = nextQuote;
      const value = escaped ? (JSON.parse(text.slice(index, end + 1)) as string) : text.slice(index + 1, end);
      index = end;
      const container = open[open.length - 1];
      if (container === IN_OBJECT && readingKey) {
        credentialMember = isCredentialOutputKey(tool, value);
        readingKey = false;
        continue;
      }
      const underCredential = container === IN_OBJECT ? credentialMember : container === IN_CREDENTIAL_ARRAY;
      if (underCredential && looksLikeSecret(value)) return true;
      if (level < MAX_JSON_LEVELS && jsonTextHoldsCredential(tool, value, level + 1)) return true;
    } else if (unit === 0x7b) {
      open.push(IN_OBJECT);
      readingKey = true;
    } else if (unit === 0x5b) {
      const container = open[open.length - 1];
      const underCredential = container === IN_OBJECT ? credentialMember : container === IN_CREDENTIAL_ARRAY;
      open.push(underCredential ? IN_CREDENTIAL_ARRAY : IN_ARRAY);
    } else if (unit === 0x7d || unit === 0x5d) {
      open.pop();
    } else if (unit === 0x2c) {
      readingKey = open[open.length - 1] === IN_OBJECT;
    }
  }
  return false;
}
