// Internal to @toolseal/result: what a secret looks like, and credentials written as a name/value
// pair, in `data` (findCredentialPairs) and in JSON text inside its strings
// (find-credentials-in-json-strings.ts).
import type { JsonObject, JsonValue } from '@toolseal/contracts';
import { normalizeKeyName } from '@toolseal/guard';
import { findInData } from './find-in-data.js';
import { isCredentialOutputKey } from './judge-output-key.js';
import type { OutputViolation } from './output-violation.js';
import type { RegisteredTool } from './tool-registry.js';

// The shortest value taken for a secret: shorter ones (`x`, `pw`, `none`) are examples or flags.
const MIN_SECRET_LENGTH = 8;
// What documentation writes instead of a secret, as the whole value (trimmed), never as a part of
// it: a generated password holding a `<`, a `...` or the letters `sample` is still a secret (read
// as a part, about three in ten random 16-character passwords passed). Optionally after an HTTP
// authentication scheme (`Bearer <token>`, `Basic ***`), one of:
// - a template: a name in `<...>`, `{{...}}`, `${...}`, `{...}`, `%...%`, `[...]` or `(...)`, of
//   letters, digits, spaces and `_ . , : / | ' ( ) -` (`<your client secret>`, `${DB_PASSWORD}`,
//   `{{ secrets.API_KEY }}`, `[redacted]`): the openers the guard's connection-string rule takes
//   for a placeholder's (`CONNECTION_KEY` of `@toolseal/guard`), and parentheses;
// - a mask, of mask characters only, as the guard reads a masked password (`MASKED_VALUE`, and a
//   URL's `scott:***@`): `***`, `...`, `…`, `xxxxxxxx`, `xxxx-xxxx-xxxx`;
// - `your` and words (`YOUR_API_KEY`, `your-api-key`);
// - words (letters and separators, digits only at the end) that hold a placeholder word:
//   `example`, `placeholder`, `redacted`, `changeme`, `dummy`, `sample` (`example-password`,
//   `REDACTED`, `changeme123`).
// Every repetition is of a character class, never of a group: linear, and no backtrack entry per
// character (V8 overflows its backtrack stack on a group repeated over megabytes).
const PLACEHOLDER =
  /^(?:(?:bearer|basic|token|bot|digest)[ \t]+)?(?:<[\p{L}\p{N} _.,:/|'()-]*>|\$?\{\{[\p{L}\p{N} _.,:/|'()-]*\}\}|\$?\{[\p{L}\p{N} _.,:/|'()-]*\}|%[\p{L}\p{N} _.,:/|'()-]*%|\[[\p{L}\p{N} _.,:/|'()-]*\]|\([\p{L}\p{N} _.,:/|'-]*\)|[*x.…][-_ :*x.…]*|your[\p{L} _.-]*|(?=[\p{L} _.-]*(?:example|placeholder|redacted|change[-_ ]?me|dummy|sample))[\p{L} _.-]+\p{N}*)$/iu;

/** Whether a string under a credential's name looks like the secret itself: 8 characters or more, and not, as a whole, a placeholder. */
export function looksLikeSecret(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length >= MIN_SECRET_LENGTH && !PLACEHOLDER.test(trimmed);
}

/** A member of an object that is not part of a name/value pair. */
export const OTHER_MEMBER = 0;
/** A member whose string names what the object carries: `name`, `key`, `header`, `ParameterKey`, `OptionName`... */
export const NAME_MEMBER = 1;
/** A member that carries the value named: `value`, `values`, `val`, `v`, `secret`, `HeaderValue`... */
export const VALUE_MEMBER = 2;

// The names of a pair's two members, after the guard's normalization (lower case, separators and
// camelCase boundaries gone), as APIs write them: HTTP header lists (`{"name": "Authorization",
// "value": "Bearer ..."}`), Kubernetes and CI environment variables, AWS tags (`Key`/`Value`) and
// stack parameters (`ParameterKey`/`ParameterValue`), form fields, settings and options. Beyond the
// list, a name member is any name ending in `name` or `key`, a value member any ending in `value`
// or `values`. `content`, `text`, `description` and `data` are not value members: a knowledge-base
// article named `password-reset` holds prose there, not a password.
const NAME_MEMBERS: ReadonlySet<string> = new Set([
  'k',
  'key',
  'name',
  'header',
  'field',
  'param',
  'parameter',
  'variable',
  'var',
  'env',
  'envvar',
  'label',
  'attribute',
  'attr',
  'property',
  'prop',
  'setting',
  'option',
]);
const VALUE_MEMBERS: ReadonlySet<string> = new Set(['v', 'val', 'value', 'values', 'secret', 'secrets']);

// Roles of the member names seen, kept across calls (names repeat: `name`, `order_ref`), at most
// this many; past it a name is classified again each time.
const MAX_KNOWN_ROLES = 4096;
const knownRoles = new Map<string, number>();

/** The role of an object member named `key` in a name/value pair: `NAME_MEMBER`, `VALUE_MEMBER` or `OTHER_MEMBER`. */
export function memberRole(key: string): number {
  const known = knownRoles.get(key);
  if (known !== undefined) return known;
  const role = roleOf(normalizeKeyName(key));
  if (knownRoles.size < MAX_KNOWN_ROLES) knownRoles.set(key, role);
  return role;
}

function roleOf(name: string | null): number {
  if (name === null || name === '') return OTHER_MEMBER;
  if (VALUE_MEMBERS.has(name) || name.endsWith('value') || name.endsWith('values')) return VALUE_MEMBER;
  if (NAME_MEMBERS.has(name) || name.endsWith('name') || name.endsWith('key')) return NAME_MEMBER;
  return OTHER_MEMBER;
}

// A JSON text holding a member whose name may be a value member's (it ends, before any separators,
// in `v`, `val`, `value`, `values`, `secret` or `secrets`, in any case): without one, no object of
// it holds a pair. One pass over the text decides the common case.
const MAY_HOLD_VALUE_MEMBER = /(?:v|val|values?|secrets?)(?:[^A-Za-z0-9"\\]|\\.)*":/i;

/** Whether `value` is, or holds at any depth, a string that looks like a secret (`looksLikeSecret`). */
function holdsSecret(value: JsonValue): boolean {
  if (typeof value === 'string') return looksLikeSecret(value);
  if (typeof value !== 'object' || value === null) return false;
  const children = Array.isArray(value) ? value : Object.values(value);
  for (let index = 0; index < children.length; index++) if (holdsSecret(children[index]!)) return true;
  return false;
}

/**
 * Whether `record` is a credential written as a name/value pair: a name member (`NAME_MEMBER`)
 * holding a name `tool`'s key scan reads as a credential's (`isCredentialOutputKey`: `Authorization`,
 * `X-Api-Key`, `DB_PASSWORD`, a look-alike of one) and a value member (`VALUE_MEMBER`) holding a
 * string that looks like a secret, or an object or array holding one.
 */
function holdsCredentialPair(tool: RegisteredTool, record: JsonObject): boolean {
  const keys = Object.keys(record);
  let named = false;
  for (let index = 0; index < keys.length && !named; index++) {
    const key = keys[index]!;
    const value = record[key];
    named = typeof value === 'string' && memberRole(key) === NAME_MEMBER && isCredentialOutputKey(tool, value);
  }
  if (!named) return false;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (memberRole(key) === VALUE_MEMBER && holdsSecret(record[key]!)) return true;
  }
  return false;
}

/**
 * Where an object of `data` is a credential written as a name/value pair (`{"name":
 * "Authorization", "value": "Bearer ..."}`, `{"Key": "DB_PASSWORD", "Value": "..."}`): the key scan
 * reads names only as keys, and a credential value recognised by its form (`findCredentialValues`)
 * misses a password or an API key of no known form. `credential_value` at the object's
 * contract-safe pointer under `prefix`. `jsonText` (a JSON text of `data`) lets the common case
 * skip the walk; `null` walks.
 */
export function findCredentialPairs(tool: RegisteredTool, data: JsonValue, jsonText: string | null, prefix = '/data'): OutputViolation[] {
  if (jsonText !== null && !MAY_HOLD_VALUE_MEMBER.test(jsonText)) return [];
  return findInData(data, prefix, 'credential_value', () => false, (record) => holdsCredentialPair(tool, record));
}
