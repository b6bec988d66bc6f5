import type { JsonValue } from '@toolseal/contracts';
import { isCommonField, isFieldName, looksLikeSecret, memberRole, MIN_FLAT_FIELD_ITEMS, NAME_MEMBER, namesCredential, OTHER_MEMBER, pairValueLooksLikeSecret, VALUE_MEMBER } from './credential-pairs.js';
import { findInData } from './find-in-data.js';
import { isCredentialOutputKey } from './judge-output-key.js';
import type { OutputViolation } from './output-violation.js';
import type { RegisteredTool } from './tool-registry.js';

// A string value that may be JSON text as a whole, after and before JSON's own whitespace: an
// object (`{...}`), an array (`[...]`) or a string literal (`"..."`: JSON text of JSON text,
// `JSON.stringify(JSON.stringify(response))`). Only such a string is parsed: a failed parse costs a
// thrown SyntaxError, and prose that merely starts with a quote (`"Hello," she said.`) is common.
// The code unit that closes what `opener` opens, or -1 (compared as code units: every key and value
// of a string holding JSON comes here, and most open nothing).
function closerOf(opener: number): number {
  return opener === 0x7b ? 0x7d : opener === 0x5b ? 0x5d : opener === 0x22 ? 0x22 : -1;
}
// The same seen in a JSON text holding the string: its opening quote, JSON's whitespace as its
// escapes, then `{`, `[` or an escaped quote. No match anywhere: no string of the value can be
// JSON text of an object, an array or a string.
// A class run, not a repeated group: V8 keeps a backtrack entry per repetition of a group, and a few
// million of them (a quote and megabytes of spaces) overflow its stack. The class also takes a
// lone `t`, `n` or `r`: a pre-check may match more than it must.
const JSON_TEXT_IN_TEXT = /"[ \\tnr]*(?:[{[]|\\")/;
// JSON inside JSON inside a string...: levels read before giving up, each unwrapped string literal
// one of them (each level's text is shorter than the one holding it, so the work stays within this
// many passes over the data).
const MAX_JSON_LEVELS = 4;

/**
 * Where a string of `data` is, as a whole, the JSON text of an object or array in which a key that
 * `tool`'s key scan reads as a credential's (`judgeOutputKey`: `password`, `client_secret`,
 * `session_token`, `authorization`, a name the tool's `sensitive_keys.extra` adds, a look-alike of
 * one such as `pаssword` with a Cyrillic `а` or `client–secret` with an en dash; never a name its
 * `sensitive_keys.allow` lifts) holds a string that looks like a secret (8 characters or more, and
 * not, as a whole, a placeholder such as `<token>`, `your-api-key` or `***`), or an object or array
 * holding one anywhere within it (whatever key holds it there: `{"secrets": {"STRIPE": "..."}}`),
 * or an object or array in which a credential is written as a name/value pair (`{"name": "Authorization",
 * "value": "Bearer ..."}`, `[["X-Api-Key", "..."]]`, a flat list such as Node's `rawHeaders`, as
 * `findCredentialPairs` reads them in `data`), at any depth and in JSON strings within it up to four levels, in its values and in its keys; a string
 * that is, as a whole, a JSON string literal (the JSON text of JSON text) is read as its content,
 * each such unwrapping one of the four levels: `credential_value` at the string's contract-safe
 * pointer under `prefix`. A handler that returns
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
  const closer = closerOf(text.charCodeAt(first));
  if (closer === -1) return false;
  let last = text.length - 1;
  while (last > first && isJsonWhitespace(text.charCodeAt(last))) last--;
  if (last === first || text.charCodeAt(last) !== closer) return false;
  if (closer === 0x22 && !mayBeEncodedJsonText(text, first, last)) return false;
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

// What the value being read sits in: an object, an array, or an object or array that a credential
// key holds, at any depth (`{"recovery_codes": ["..."]}`, `{"client_secret": {"value": "..."}}`,
// `{"credentials": {"user": "svc", "pass": "..."}}`): spec 000 rejects credentials recursively,
// and the key scan refuses such a key in `data` whatever it holds. Under one, every string counts,
// whatever key holds it (`{"secrets": {"STRIPE": "..."}}`).
const IN_OBJECT = 0;
const IN_ARRAY = 1;
const IN_CREDENTIAL_OBJECT = 2;
const IN_CREDENTIAL_ARRAY = 3;
// What an open object has shown of a name/value pair.
const NAMED = 1;
const SECRET = 2;
// What an open array has shown of a flat list of names and values.
const FIELD_NAMES = 1;
const FIELD_SECRET = 2;
const COMMON_FIELD = 4;

function isArrayKind(container: number | undefined): boolean {
  return container === IN_ARRAY || container === IN_CREDENTIAL_ARRAY;
}

/** Whether the value read next in `container` is under a credential key (`credentialMember`: the member's key is one). */
function isUnderCredential(container: number | undefined, credentialMember: boolean): boolean {
  return container === IN_OBJECT || container === IN_CREDENTIAL_OBJECT ? credentialMember : container === IN_CREDENTIAL_ARRAY;
}

/**
 * Whether the JSON text `text[first..last]` of an object or array (`JSON.parse` accepted it) holds
 * a secret-looking string under a credential key (in an object or array it holds too, at any
 * depth), an object holding a credential as a name/value pair, or JSON text holding one at the
 * next level, in a value or in a key. Reads the tokens of
 * the text, as the model reads them, in one pass: every member counts, a duplicate key's first
 * value and `__proto__` included. Iterative; only a string with an escape is decoded by
 * `JSON.parse`.
 */
function membersHoldCredential(tool: RegisteredTool, text: string, first: number, last: number, level: number): boolean {
  const open: number[] = [];
  // The next string of an object is a key (after `{` or `,`), and whether the member being read
  // has a credential key (every member of an object under one has). One flag, not one per open
  // object: after an inner object or array closes, its parent reads a `,` or closes before any
  // value, and the next key sets the flag again.
  let readingKey = false;
  let credentialMember = false;
  // Name/value pairs (credential-pairs.ts), read as the model reads them: the role of the member
  // being read (one variable, as `credentialMember`); for each open container, what its object has
  // shown so far (NAMED: a name member naming a credential, SECRET: a value member holding a
  // secret-looking string), the open object whose value member holds it at any depth, or -1, and,
  // for an array, the index of the item being read (an array of two strings in an array is a pair
  // too: `[["X-Api-Key", "..."]]`; its NAMED and SECRET are its first and second item's).
  let role = OTHER_MEMBER;
  const pairs: number[] = [];
  const valueOf: number[] = [];
  const items: number[] = [];
  // For each open array, what it has shown as a flat list of names and values (Node's
  // `rawHeaders`, `isFlatFieldList`): FIELD_NAMES while every item at an even index read so far is
  // a field name, FIELD_SECRET once a value looks like a secret after a name naming a credential
  // (the value is looked at first: most hold no secret), COMMON_FIELD once a name is a field
  // nearly every message carries; the name read last at an even index (until the value after it);
  // and how many of its items are strings (all of them, at its end).
  const flat: number[] = [];
  const fieldNames: (string | null)[] = [];
  const strings: number[] = [];
  const show = (level: number, seen: number): boolean => {
    const shown = (pairs[level] as number) | seen;
    pairs[level] = shown;
    return shown === (NAMED | SECRET);
  };
  // Marks the open object `level` and every object whose value member holds it, at any depth, as
  // holding a secret. An object marked already has its holders marked (this is the only way
  // SECRET is set), so the walk stops there: each object is marked once, in one pass.
  const showSecret = (level: number): boolean => {
    for (let holder = level; holder !== -1 && ((pairs[holder] as number) & SECRET) === 0; holder = valueOf[holder] as number) {
      if (show(holder, SECRET)) return true;
    }
    return false;
  };
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
      if (readingKey) {
        // The key scan's verdict is not needed where every member is under a credential key.
        credentialMember = container === IN_CREDENTIAL_OBJECT || isCredentialOutputKey(tool, value);
        role = memberRole(value);
        readingKey = false;
        // A key is text the model reads as it reads a value: JSON text in it is read at the next
        // level too (`{"{\"password\":\"...\"}": true}`), within the same four levels.
        if (level < MAX_JSON_LEVELS && jsonTextHoldsCredential(tool, value, level + 1)) return true;
        continue;
      }
      if (isUnderCredential(container, credentialMember) && looksLikeSecret(value)) return true;
      const top = open.length - 1;
      if (container === IN_OBJECT || container === IN_CREDENTIAL_OBJECT) {
        if (role === NAME_MEMBER && namesCredential(tool, value) && show(top, NAMED)) return true;
        if (role === VALUE_MEMBER && pairValueLooksLikeSecret(value) && showSecret(top)) return true;
      } else {
        const item = items[top] as number;
        if (top > 0 && isArrayKind(open[top - 1])) {
          // An item of an array in an array: a pair when the inner array turns out to be two strings.
          if (item === 0 && namesCredential(tool, value)) pairs[top] = NAMED;
          else if (item === 1 && pairs[top] === NAMED && pairValueLooksLikeSecret(value)) pairs[top] = NAMED | SECRET;
        }
        strings[top] = (strings[top] as number) + 1;
        const shown = flat[top] as number;
        if ((shown & FIELD_NAMES) === 0) {
          // No flat field list: nothing more to look at.
        } else if (item % 2 === 0) {
          // Each test once per list: a common field seen, or a secret found, is not looked for again.
          if (!isFieldName(value)) flat[top] = 0;
          else {
            if ((shown & COMMON_FIELD) === 0 && isCommonField(value)) flat[top] = shown | COMMON_FIELD;
            fieldNames[top] = (shown & FIELD_SECRET) === 0 ? value : null;
          }
        } else {
          const name = fieldNames[top] as string | null;
          fieldNames[top] = null;
          if (name !== null && pairValueLooksLikeSecret(value) && namesCredential(tool, name)) flat[top] = shown | FIELD_SECRET;
        }
      }
      // Every object whose value member holds this string, at any depth, holds a secret: the
      // nearest, and the one whose value member holds that one (`{"value": {"values": ["..."]}}`).
      const holder = valueOf[top] as number;
      if (holder !== -1 && ((pairs[holder] as number) & SECRET) === 0 && pairValueLooksLikeSecret(value) && showSecret(holder)) return true;
      if (level < MAX_JSON_LEVELS && jsonTextHoldsCredential(tool, value, level + 1)) return true;
    } else if (unit === 0x7b || unit === 0x5b) {
      const top = open.length - 1;
      const container = open[top];
      const underCredential = isUnderCredential(container, credentialMember);
      open.push(unit === 0x7b ? (underCredential ? IN_CREDENTIAL_OBJECT : IN_OBJECT) : underCredential ? IN_CREDENTIAL_ARRAY : IN_ARRAY);
      pairs.push(0);
      items.push(0);
      flat.push(FIELD_NAMES);
      fieldNames.push(null);
      strings.push(0);
      const inObject = container === IN_OBJECT || container === IN_CREDENTIAL_OBJECT;
      valueOf.push(top === -1 ? -1 : inObject && role === VALUE_MEMBER ? top : (valueOf[top] as number));
      readingKey = unit === 0x7b;
    } else if (unit === 0x7d || unit === 0x5d) {
      // An array of exactly two strings, in an array, naming a credential and holding a secret.
      if (unit === 0x5d && pairs[pairs.length - 1] === (NAMED | SECRET) && items[items.length - 1] === 1) return true;
      // A flat list of names and values: every item a string, at least four, an even number.
      const count = strings[strings.length - 1] as number;
      if (
        unit === 0x5d &&
        ((flat[flat.length - 1] as number) & (FIELD_NAMES | FIELD_SECRET | COMMON_FIELD)) === (FIELD_NAMES | FIELD_SECRET | COMMON_FIELD) &&
        count === (items[items.length - 1] as number) + 1 &&
        count >= MIN_FLAT_FIELD_ITEMS &&
        count % 2 === 0
      ) {
        return true;
      }
      open.pop();
      pairs.pop();
      valueOf.pop();
      items.pop();
      flat.pop();
      fieldNames.pop();
      strings.pop();
    } else if (unit === 0x2c) {
      const top = open.length - 1;
      const container = open[top];
      readingKey = container === IN_OBJECT || container === IN_CREDENTIAL_OBJECT;
      if (!readingKey) items[top] = (items[top] as number) + 1;
    }
  }
  return false;
}
