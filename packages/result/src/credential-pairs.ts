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
//   URL's `scott:***@`): `***`, `...`, `…`, `xxxxxxxx`, `xxxx-xxxx-xxxx`, bullets `••••`;
// - `your` and words (`YOUR_API_KEY`, `your-api-key`);
// - words (letters and separators, digits only at the end) that hold a placeholder word:
//   `example`, `placeholder`, `redacted`, `changeme`, `dummy`, `sample` (`example-password`,
//   `REDACTED`, `changeme123`, `***REDACTED***`).
// Every repetition is of a character class, never of a group: linear, and no backtrack entry per
// character (V8 overflows its backtrack stack on a group repeated over megabytes).
const PLACEHOLDER =
  /^(?:(?:bearer|basic|token|bot|digest)[ \t]+(?![ \t]))?(?:<[\p{L}\p{N} _.,:/|'()-]*>|\$?\{\{[\p{L}\p{N} _.,:/|'()-]*\}\}|\$?\{[\p{L}\p{N} _.,:/|'()-]*\}|%[\p{L}\p{N} _.,:/|'()-]*%|\[[\p{L}\p{N} _.,:/|'()-]*\]|\([\p{L}\p{N} _.,:/|'-]*\)|[*x.…•●·][-_ :*x.…•●·]*|your[\p{L} _.-]*|(?=[\p{L} _.*-]*(?:example|placeholder|redacted|change[-_ ]?me|dummy|sample))[\p{L} _.*-]+\p{N}*)$/iu;
// What else a pair's value may be instead of the secret its name names, beyond the placeholders
// above (these shapes are read in a pair's value only: under a credential key in JSON text,
// `P4ss...w0rd` or `$uperSecret1` is a password): a settings page's mask of a stored key, with no
// prefix or one ending in `-` or `_` (a provider's, `sk-`, `sk-proj-`), a run of at least three
// `*`, bullets or dots, and at most 4 letters or digits (`************a1b2`, `sk-...a1b2`,
// `sk-proj-****wxyz`); a shell variable in upper case (`$TOKEN`, `Bearer $API_KEY` after the
// scheme); an absolute path (`PWD=/usr/src/app`, a key file's location); a number written as text,
// alone or before one word (`12345678`, `3600 seconds`).
// A path's segment: lower case, digits and `. _ -`, capitals only each before one of those (`usr`,
// `.aws`, `AppData`, `kubernetes.io`), written so that a run splits one way only (no backtracking
// to try): a random key that starts with `/` has two capitals in a row or a `+` almost always.
const PATH_SEGMENT = '[a-z0-9._-]*(?:[A-Z][a-z0-9._-]+)*[A-Z]?';
const PAIR_NOT_SECRET = new RegExp(
  `^(?:(?:[A-Za-z0-9]{1,8}[-_]){0,2}[*•●·.…]{3,}[A-Za-z0-9]{0,4}|\\$[A-Z_][A-Z0-9_]*|(?:/|~/|[A-Za-z]:[\\\\/])${PATH_SEGMENT}(?:[\\\\/]${PATH_SEGMENT})*|[0-9][0-9,._ ]*(?: \\p{L}+)?)$`,
  'u',
);
// A placeholder is short: a longer value is never one, and the pattern is not tried on it (a
// scheme word followed by tens of thousands of spaces made its alternatives rescan the run).
const MAX_PLACEHOLDER_LENGTH = 256;

/** Whether a string under a credential's name looks like the secret itself: 8 characters or more, and not, as a whole, a placeholder. */
export function looksLikeSecret(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length >= MIN_SECRET_LENGTH && (trimmed.length > MAX_PLACEHOLDER_LENGTH || !PLACEHOLDER.test(trimmed));
}

/** A member of an object that is not part of a name/value pair. */
export const OTHER_MEMBER = 0;
/** A member whose string names what the object carries: `name`, `key`, `header`, `ParameterKey`, `OptionName`... */
export const NAME_MEMBER = 1;
/** A member that carries the value named: `value`, `values`, `val`, `v`, `secret`, `HeaderValue`... */
export const VALUE_MEMBER = 2;

// The names of a pair's two members, lower-cased with everything but letters and digits dropped
// (`ParameterKey` is `parameterkey`, `header-value` is `headervalue`), as APIs write them: HTTP
// header lists (`{"name": "Authorization", "value": "Bearer ..."}`), Kubernetes and CI
// environment variables, AWS tags (`Key`/`Value`) and stack parameters (`ParameterKey` /
// `ParameterValue`), settings and options. Beyond the list, a name member is any name ending in
// `name` or `key`, a value member any ending in `value` or `values`. `label` is no name member (a
// form's options are `{"label": "Password", "value": "password"}`), and `content`, `text`,
// `description` and `data` are no value members: an article named `password-reset` holds prose
// there. Only ASCII names are read: `data` holds no other key (the key scan refuses it), and in
// JSON text inside a string a name beyond ASCII is no member name (a known gap).
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
  'attribute',
  'attr',
  'property',
  'prop',
  'setting',
  'option',
]);
const VALUE_MEMBERS: ReadonlySet<string> = new Set(['v', 'val', 'value', 'values', 'secret', 'secrets']);
const ASCII_NAME = /^[\x20-\x7e]{1,64}$/;
const NOT_LETTER_OR_DIGIT = /[^a-z0-9]/g;

// Roles of the keys of `data` seen, kept across calls (a contract's names repeat: `name`,
// `order_ref`), at most this many. Keys of `data` come from `JSON.parse` and are at most 64
// characters here; names read from JSON text inside a string are never kept (a slice of a long
// string keeps the whole string alive).
const MAX_KNOWN_ROLES = 4096;
const knownRoles = new Map<string, number>();

/** The role of an object member named `key` in a name/value pair: `NAME_MEMBER`, `VALUE_MEMBER` or `OTHER_MEMBER`. */
export function memberRole(key: string): number {
  if (!ASCII_NAME.test(key)) return OTHER_MEMBER;
  const name = key.toLowerCase().replace(NOT_LETTER_OR_DIGIT, '');
  if (name === '') return OTHER_MEMBER;
  if (VALUE_MEMBERS.has(name) || name.endsWith('value') || name.endsWith('values')) return VALUE_MEMBER;
  if (NAME_MEMBERS.has(name) || name.endsWith('name') || name.endsWith('key')) return NAME_MEMBER;
  return OTHER_MEMBER;
}

/** `memberRole` of a key of `data`, remembered. */
function dataMemberRole(key: string): number {
  const known = knownRoles.get(key);
  if (known !== undefined) return known;
  const role = memberRole(key);
  if (knownRoles.size < MAX_KNOWN_ROLES && key.length <= 64) knownRoles.set(key, role);
  return role;
}

// Longer strings are not taken for a name (header and variable names are short), so a long string
// in a name member is never run through the key scan.
const MAX_NAME_LENGTH = 256;

/** Whether `name`, the string of a pair's name member, names a credential for `tool` (`isCredentialOutputKey`). */
export function namesCredential(tool: RegisteredTool, name: string): boolean {
  if (name.length > MAX_NAME_LENGTH) return false;
  return isCredentialOutputKey(tool, name);
}

// An HTTP authentication scheme and the credential after it (`Bearer abcdef...`): what follows
// the scheme is the secret, whatever letters it is made of.
const AUTH_SCHEME = /^(?:bearer|basic|token|bot|digest)[ \t]+(?![ \t])/i;
// Words, not a secret: words joined by single spaces, `-`, `_` or `.` (`Not configured`,
// `enabled-weekly`, `Oatmeal raisin`), or one word, each in lower case, capitalized, or in capitals
// up to 12 letters (`password`, `Password`, `NOT_SET`); prose of three words or more, each of
// letters with a closing punctuation mark at most (`Required, from the dashboard`, `Enter your
// password.`); text in a script without letter case (Japanese, Chinese). A run of letters that
// mixes cases inside a word (`qZrKpLmNxVbT`) or a run of more than 12 capitals (a base32 secret)
// is taken for a secret.
const WORD = '(?:\\p{Lu}?\\p{Ll}+|\\p{Lu}{1,12})';
const WORDS = new RegExp(`^${WORD}(?:[ _.-]${WORD})*[.!?]?$`, 'u');
const PROSE = /^\p{L}[\p{L}'’-]*[,.;:!?]?(?: \p{L}[\p{L}'’-]*[,.;:!?]?){2,}$/u;
const UNCASED_TEXT = /^(?=[^\p{Lo}]*\p{Lo})[\p{Lo}\p{Lm}\p{M}\p{P}\p{Zs}]+$/u;
// References to a secret kept elsewhere, which are not the secret: an AWS ARN of Secrets Manager,
// Parameter Store or KMS, an Azure Key Vault reference, a Google Secret Manager resource name.
const SECRET_REFERENCE = /^(?:arn:aws[a-z-]*:(?:secretsmanager|ssm|kms):|@Microsoft\.KeyVault\(|projects\/[A-Za-z0-9_-]+\/secrets\/)/;
/**
 * Whether `value`, a string in a pair's value member, looks like the secret its name names:
 * `looksLikeSecret` (8 characters or more, not a placeholder), and not words, a number written as
 * text or a reference to a secret kept elsewhere; after an HTTP authentication scheme, whatever
 * follows it that `looksLikeSecret`.
 */
export function pairValueLooksLikeSecret(value: string): boolean {
  if (!looksLikeSecret(value)) return false;
  const trimmed = value.trim();
  if (trimmed.length > MAX_PLACEHOLDER_LENGTH) return true;
  const scheme = AUTH_SCHEME.exec(trimmed);
  if (scheme !== null) {
    const credential = trimmed.slice(scheme[0].length);
    return looksLikeSecret(credential) && !PAIR_NOT_SECRET.test(credential);
  }
  return !(
    PAIR_NOT_SECRET.test(trimmed) ||
    WORDS.test(trimmed) ||
    PROSE.test(trimmed) ||
    UNCASED_TEXT.test(trimmed) ||
    SECRET_REFERENCE.test(trimmed)
  );
}

/**
 * Whether `value` is, or holds at any depth, a string that looks like a pair's secret
 * (`pairValueLooksLikeSecret`). `memo` keeps the answers for the objects and arrays walked in one
 * call: value members nested in value members (`{"value": {"value": {...}}}`) would otherwise walk
 * what is below them once per level. One call's only: a caller's object can change between calls.
 */
function holdsSecret(value: JsonValue, memo: SecretMemo): boolean {
  if (typeof value === 'string') return pairValueLooksLikeSecret(value);
  if (typeof value !== 'object' || value === null) return false;
  const answers = (memo.answers ??= new Map<object, boolean>());
  const known = answers.get(value);
  if (known !== undefined) return known;
  const children = Array.isArray(value) ? value : Object.values(value);
  let holds = false;
  for (let index = 0; index < children.length && !holds; index++) holds = holdsSecret(children[index]!, memo);
  answers.set(value, holds);
  return holds;
}

// A field name of HTTP (RFC 9110 §5.1: a token) or an HTTP/2 pseudo-header (`:authority`,
// `:path`, which Node's HTTP/2 `rawHeaders` list first), at most 64 characters.
const FIELD_NAME = /^:?[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** The fewest items of a flat list of names and values: two are a pair alone (a list of two tags). */
export const MIN_FLAT_FIELD_ITEMS = 4;
// Fields nearly every HTTP request or response carries, none of them a credential: a flat list
// holding one of them as a name is a list of headers, not a list of tags that happens to pair
// `token` with `MetaMask` (`["ethereum", "wallet", "token", "MetaMask"]`).
const COMMON_FIELDS: ReadonlySet<string> = new Set([
  'host',
  ':authority',
  ':path',
  ':method',
  ':scheme',
  ':status',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'content-length',
  'content-encoding',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'date',
  'server',
  'cache-control',
  'pragma',
  'expires',
  'last-modified',
  'etag',
  'vary',
  'via',
  'location',
  'origin',
  'referer',
  'upgrade',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-request-id',
]);

const MAX_COMMON_FIELD_LENGTH = Math.max(...[...COMMON_FIELDS].map((field) => field.length));

/** Whether `name` can be the name of a flat field list (`isFlatFieldList`): an HTTP field name or pseudo-header. */
export function isFieldName(name: string): boolean {
  return FIELD_NAME.test(name);
}

/** Whether `name` (a field name) is one nearly every HTTP message carries, none a credential (`Host`, `Content-Type`, `:path`). */
export function isCommonField(name: string): boolean {
  return name.length <= MAX_COMMON_FIELD_LENGTH && (COMMON_FIELDS.has(name) || COMMON_FIELDS.has(name.toLowerCase()));
}

/**
 * Whether `items` is a flat list of HTTP fields, names and values, as Node's
 * `IncomingMessage#rawHeaders` writes a message's headers (`["Host", "example.com",
 * "Authorization", "Bearer ..."]`, or HTTP/2's `[":path", "/", ...]`): at least four items, an
 * even number, every one a string, every item at an even index an HTTP field name, one of them a
 * field nearly every message carries (`isCommonField`).
 */
function isFlatFieldList(items: readonly JsonValue[]): boolean {
  if (items.length < MIN_FLAT_FIELD_ITEMS || items.length % 2 !== 0) return false;
  let common = false;
  for (let index = 0; index < items.length; index += 2) {
    const name = items[index];
    if (typeof name !== 'string' || typeof items[index + 1] !== 'string' || !FIELD_NAME.test(name)) return false;
    common ||= isCommonField(name);
  }
  return common;
}

/** `holdsSecret`'s answers in one call, made when a value member first holds an object or array. */
interface SecretMemo {
  answers: Map<object, boolean> | null;
}

/**
 * Whether `container` is a credential written as a name/value pair. An object: a value member
 * (`VALUE_MEMBER`) holding a string that looks like a secret (`pairValueLooksLikeSecret`), or an
 * object or array holding one, beside a name member (`NAME_MEMBER`) holding a name `tool`'s key
 * scan reads as a credential's (`namesCredential`: `Authorization`, `X-Api-Key`, `DB_PASSWORD`, a
 * look-alike of one). An array: one of its items is a pair of two strings, the first naming a
 * credential and the second looking like a secret (`[["X-Api-Key", "..."]]`, as `[...headers]`,
 * Python's `list(headers.items())` and Sentry's `request.headers` write them), or the array is a
 * flat list of names and values in which a name naming a credential is followed by a value that
 * looks like a secret (`isFlatFieldList`: Node's `rawHeaders`). A pair alone, not in a list of
 * pairs, is no pair (a list of two tags). The value is looked at first: most pairs hold no secret.
 */
function holdsCredentialPair(tool: RegisteredTool, container: JsonObject | readonly JsonValue[], memo: SecretMemo, objectKeys?: readonly string[]): boolean {
  if (Array.isArray(container)) {
    const items: readonly JsonValue[] = container;
    for (let index = 0; index < items.length; index++) {
      const item = items[index];
      if (!Array.isArray(item) || item.length !== 2) continue;
      const [name, value] = item as readonly JsonValue[];
      if (typeof name === 'string' && typeof value === 'string' && pairValueLooksLikeSecret(value) && namesCredential(tool, name)) return true;
    }
    if (items.length < MIN_FLAT_FIELD_ITEMS || items.length % 2 !== 0) return false;
    // The values first (most arrays hold none that looks like a secret), the list's shape last.
    for (let index = 0; index < items.length; index += 2) {
      const name = items[index];
      const value = items[index + 1];
      if (typeof name === 'string' && typeof value === 'string' && pairValueLooksLikeSecret(value) && namesCredential(tool, name)) {
        return isFlatFieldList(items);
      }
    }
    return false;
  }
  const record = container as JsonObject;
  const keys = objectKeys ?? Object.keys(record);
  let secret = false;
  for (let index = 0; index < keys.length && !secret; index++) {
    const key = keys[index]!;
    secret = dataMemberRole(key) === VALUE_MEMBER && holdsSecret(record[key]!, memo);
  }
  if (!secret) return false;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const name = record[key];
    if (typeof name === 'string' && dataMemberRole(key) === NAME_MEMBER && namesCredential(tool, name)) return true;
  }
  return false;
}

/**
 * Where an object or array of `data` is a credential written as a name/value pair (`{"name":
 * "Authorization", "value": "Bearer ..."}`, `{"Key": "DB_PASSWORD", "Value": "..."}`,
 * `[["X-Api-Key", "..."]]`, `["Host", "...", "X-Api-Key", "..."]`; `holdsCredentialPair`): the key scan reads names only as keys, and a
 * credential value recognised by its form (`findCredentialValues`) misses a password or an API key
 * of no known form. `credential_value` at the container's contract-safe pointer under `prefix`.
 * Walks every object and array (each key's role is remembered across calls).
 */
export function findCredentialPairs(tool: RegisteredTool, data: JsonValue, prefix = '/data'): OutputViolation[] {
  // One walk without pointers decides the common case (no pair anywhere); only a hit walks again
  // to say where.
  const memo: SecretMemo = { answers: null };
  if (!anyCredentialPair(tool, data, memo)) return [];
  return findInData(data, prefix, 'credential_value', () => false, (container) => holdsCredentialPair(tool, container, memo));
}

/** Whether any object or array of `value` (a guard-checked value: its depth is bounded) is a credential pair. */
function anyCredentialPair(tool: RegisteredTool, value: JsonValue, memo: SecretMemo): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    if (holdsCredentialPair(tool, value, memo)) return true;
    for (let index = 0; index < value.length; index++) if (anyCredentialPair(tool, value[index]!, memo)) return true;
    return false;
  }
  // One key list per object, for its own check and the walk below it.
  const keys = Object.keys(value);
  if (holdsCredentialPair(tool, value, memo, keys)) return true;
  for (let index = 0; index < keys.length; index++) if (anyCredentialPair(tool, value[keys[index]!]!, memo)) return true;
  return false;
}
