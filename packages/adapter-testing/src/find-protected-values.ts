import type { SealedResult } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';

/** One protected value found in serialized payload text. */
export interface ProtectedValueHit {
  /** Where the value sits in `protected_audit`, e.g. `/downstream/operation_id`. */
  path: string;
  /** The value found. */
  value: string;
}

/** The `protected_audit` members that may legitimately show up in a payload, and why. */
const PUBLIC_PATHS = new Set([
  '/schema_version', // a constant, not a secret
  '/provider_context/provider', // the provider's own correlation fields
  '/provider_context/api_family',
  '/provider_context/response_id',
  '/provider_context/call_id',
  '/provider_context/adapter_revision',
  '/tool_contract/tool_name', // the model chose the name; Gemini echoes it
  '/tool_contract/effect',
  '/tool_contract/producer_revision', // also in model_result.provenance by design
]);

/**
 * Key names that only `protected_audit` uses: none may appear as the name of a member of a JSON
 * object in a payload (see `findProtectedValues` for where it looks). A word in a text is no key:
 * `binding`, `downstream` or `redactions` in the host's text or the tool's data is not a leak.
 */
export const PROTECTED_KEY_NAMES: readonly string[] = Object.freeze([
  'protected_audit',
  'principal_ref',
  'provider_context',
  'tool_contract',
  'downstream',
  'operation_id',
  'idempotency_key',
  'status_ref',
  'binding',
  'request_sha256',
  'result_sha256',
  'call_binding_sha256',
  'redactions',
]);

function collect(value: unknown, path: string, into: Array<{ path: string; value: string }>): void {
  if (typeof value === 'string') {
    into.push({ path, value });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => collect(item, `${path}/${index}`, into));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) collect(item, `${path}/${key}`, into);
  }
}

/** `text` as it appears inside a JSON string literal: `"` as `\"`, `\` as `\\`, controls escaped. */
function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** `text` with every character outside printable ASCII as a `\uXXXX` escape (`ensure_ascii` serializers). */
function asciiEscaped(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The forms a value can take in a serialized request body: as is (raw text), JSON-escaped once (a
 * string in the JSON body), twice (a string inside JSON text that is itself a string of the body,
 * as a `model_result` text is), and each escaped with non-ASCII as `\uXXXX`. A value with a quote,
 * a backslash or a control character differs between them, so searching the raw form alone misses it.
 */
function serializedForms(value: string): Set<string> {
  const once = jsonEscaped(value);
  const twice = jsonEscaped(once);
  return new Set([value, once, twice, asciiEscaped(once), asciiEscaped(twice)]);
}

/** The canonical text of `value`, or `undefined` when it has none (a value JSON cannot express). */
function canonicalTextOf(value: unknown): string | undefined {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
}

/** `PROTECTED_KEY_NAMES`, to look a name up. */
const PROTECTED_KEY_NAME_SET: ReadonlySet<string> = new Set(PROTECTED_KEY_NAMES);

/**
 * A protected name in quotes followed by a colon, the quotes escaped any number of times over
 * (`"binding":`, `\"binding\":`): how a member name reads in JSON-like text that does not parse
 * (prose around it, a markdown fence, a trailer line, NDJSON, a trailing comma). A word in a
 * sentence has no colon after it. `MEMBER_NAME_TEST` is the same pattern, for one test.
 */
// No backslashes before the opening quote: they never change whether the pattern matches, and a
// leading run of them made the engine retry the run from each of its characters (quadratic).
const MEMBER_NAME_PATTERN = new RegExp(`"(${PROTECTED_KEY_NAMES.join('|')})\\\\*"\\s*:`, 'g');
const MEMBER_NAME_TEST = new RegExp(MEMBER_NAME_PATTERN.source);

/**
 * How many times over a string may be a JSON string literal of a string (JSON text stringified
 * twice or more) and still be unwrapped and parsed. Beyond it the string is searched as text that
 * does not parse, which still finds quoted member names escaped any number of times.
 */
const MAX_STRING_LITERAL_LEVELS = 16;

/** What the key-name scan knows of the packages' `model_result`s, the tool's data it skips. */
interface SealedData {
  /** The canonical text of each `model_result`. */
  texts: ReadonlySet<string>;
  /** Each `model_result`'s member names, sorted, as JSON text (see `memberSetKey`). */
  memberSets: ReadonlySet<string>;
  /** Each canonical text raw, JSON-escaped once and twice: the forms a copy takes inside other text. */
  forms: readonly string[];
}

/** The member names of an object, in any order, as one comparable text. */
function memberSetKey(names: Iterable<string>): string {
  return JSON.stringify([...names].sort());
}

/** What the key-name scan needs to know of the `model_result`s of `results`. */
function sealedDataOf(results: readonly SealedResult[]): SealedData {
  const texts = new Set<string>();
  const memberSets = new Set<string>();
  const forms = new Set<string>();
  for (const result of results) {
    const text = canonicalTextOf(result.model_result);
    if (text === undefined) continue;
    texts.add(text);
    memberSets.add(memberSetKey(Object.keys(result.model_result)));
    const once = jsonEscaped(text);
    forms.add(text).add(once).add(jsonEscaped(once));
  }
  return { texts, memberSets, forms: [...forms] };
}

/** An object or an array open at the point the scan of JSON text has reached. */
interface OpenContainer {
  /** Where it starts in the text: its `{` or `[`. */
  start: number;
  /** An object's member names so far; `undefined` for an array. */
  members: Set<string> | undefined;
  /** Whether it, or anything inside it, has two members of one name (`JSON.parse` keeps the last only). */
  duplicates: boolean;
  /** The protected names found inside it so far. */
  found: Set<string>;
}

/** The index just past the string literal that starts at `start` in `text` (valid JSON text). */
function stringLiteralEnd(text: string, start: number): number {
  let index = start + 1;
  for (;;) {
    const unit = text.charCodeAt(index);
    if (unit === 0x5c) index += 2;
    else if (unit === 0x22) return index + 1;
    else index += 1;
  }
}

/** Whether the next character of `text` from `index` that is not JSON whitespace is a colon. */
function followedByColon(text: string, index: number): boolean {
  for (; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit === 0x3a) return true;
    if (unit !== 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d) return false;
  }
  return false;
}

/**
 * Whether `container`, an object that closed just before `end` in `text`, is a copy of one of the
 * packages' `model_result`s: the same member names, none twice at any depth, and the same
 * canonical text. Only an object with a `model_result`'s member names is canonicalized, so the
 * cost stays linear in the size of the text whatever its nesting.
 */
function isSealedCopy(text: string, container: OpenContainer, end: number, sealed: SealedData): boolean {
  if (container.members === undefined || container.duplicates || !sealed.memberSets.has(memberSetKey(container.members))) return false;
  const canonical = canonicalTextOf(JSON.parse(text.slice(container.start, end)));
  return canonical !== undefined && sealed.texts.has(canonical);
}

/**
 * Adds to `into` every name of `PROTECTED_KEY_NAMES` that `text`, valid JSON text, uses as the
 * name of an object member, and every one found in its strings and other member names (see
 * `scanString`). It reads the text itself rather than what `JSON.parse` makes of it, so a member
 * that a later one of the same name shadows is seen too. An object that is a copy of a
 * `model_result` (`isSealedCopy`) is the tool's data: what was found inside it is dropped.
 * It keeps its own stack, so nesting depth is no limit.
 */
function scanJsonText(text: string, sealed: SealedData, into: Set<string>): void {
  const open: OpenContainer[] = [];
  let index = 0;
  while (index < text.length) {
    const unit = text.charCodeAt(index);
    const innermost = open[open.length - 1];
    if (unit === 0x7b || unit === 0x5b) {
      open.push({ start: index, members: unit === 0x7b ? new Set() : undefined, duplicates: false, found: new Set() });
      index += 1;
    } else if (unit === 0x7d || unit === 0x5d) {
      open.pop();
      index += 1;
      if (innermost === undefined || isSealedCopy(text, innermost, index, sealed)) continue;
      const parent = open[open.length - 1];
      if (parent !== undefined && innermost.duplicates) parent.duplicates = true;
      const target = parent === undefined ? into : parent.found;
      for (const name of innermost.found) target.add(name);
    } else if (unit === 0x22) {
      const end = stringLiteralEnd(text, index);
      const value: unknown = JSON.parse(text.slice(index, end));
      const target = innermost === undefined ? into : innermost.found;
      if (typeof value === 'string') {
        if (innermost?.members !== undefined && followedByColon(text, end)) {
          if (innermost.members.has(value)) innermost.duplicates = true;
          else innermost.members.add(value);
          scanString(value, sealed, target, 0, true);
        } else {
          scanString(value, sealed, target, 0, false);
        }
      }
      index = end;
    } else {
      index += 1;
    }
  }
}

/**
 * Adds to `into` the protected names that `value`, a string or a member name of a payload, holds
 * as member names. A member name (`memberName`) that is a protected name, as is or as a JSON string
 * literal of it (`"\"binding\""`), is one itself. A string exactly equal to a `model_result`'s
 * canonical text is the tool's data and skipped. JSON text (after a byte order mark or other
 * space, which is trimmed) is read member by member (`scanJsonText`); a JSON string literal of a
 * string (JSON text stringified twice) is unwrapped and scanned in turn, up to
 * `MAX_STRING_LITERAL_LEVELS` times. Any other text is searched for a name in quotes followed by
 * a colon (`MEMBER_NAME_PATTERN`), after the copies of `model_result` texts it holds, raw or
 * escaped once or twice, are taken out.
 */
function scanString(value: string, sealed: SealedData, into: Set<string>, levels: number, memberName: boolean): void {
  if (memberName && PROTECTED_KEY_NAME_SET.has(value)) {
    into.add(value);
    return;
  }
  if (sealed.texts.has(value)) return;
  const trimmed = value.trim();
  const first = trimmed[0];
  if (first === '{' || first === '[' || first === '"') {
    let parsed: unknown;
    let isJson = true;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      isJson = false;
    }
    if (isJson && typeof parsed !== 'string') {
      scanJsonText(trimmed, sealed, into);
      return;
    }
    if (typeof parsed === 'string' && levels < MAX_STRING_LITERAL_LEVELS) {
      scanString(parsed, sealed, into, levels + 1, memberName);
      return;
    }
  }
  if (!MEMBER_NAME_TEST.test(value)) return;
  let text = value;
  for (const form of sealed.forms) if (text.includes(form)) text = text.split(form).join(' ');
  for (const match of text.matchAll(MEMBER_NAME_PATTERN)) {
    const name = match[1];
    if (name !== undefined) into.add(name);
  }
}

/**
 * The protected-only key names (`PROTECTED_KEY_NAMES`) that `serialized` uses as member names, in
 * the order of that list. `serialized` that is not JSON text (a raw body of another kind) is
 * searched for each name in quotes, raw or JSON-escaped, as no structure can be told from words there.
 */
function protectedKeyNamesIn(serialized: string, results: readonly SealedResult[]): string[] {
  try {
    JSON.parse(serialized);
  } catch {
    return PROTECTED_KEY_NAMES.filter((key) => serialized.includes(`"${key}"`) || serialized.includes(`\\"${key}\\"`));
  }
  const found = new Set<string>();
  scanJsonText(serialized, sealedDataOf(results), found);
  return PROTECTED_KEY_NAMES.filter((key) => found.has(key));
}

/**
 * Every protected value of `results` (principal reference, digests, operation id, idempotency key,
 * receipt, status reference, contract revisions) that occurs in `serialized`, raw or in any form
 * JSON serialization gives it (see `serializedForms`), plus every protected-only key name
 * (`PROTECTED_KEY_NAMES`) that `serialized` uses as a member name, as `{ path: '#key', value }`.
 * Empty means nothing protected leaked.
 *
 * What it searches, and what it does not:
 *
 * - **Values** are matched as whole texts anywhere in `serialized`, case-sensitively, raw or
 *   escaped once or twice. Values shorter than 8 characters are skipped (they would match by
 *   accident: `op-1`, a `null` receipt never counts); give test packages distinctive protected
 *   values, as `fakeSealedResult` and the conformance kit do. A value the adapter re-cases, cuts
 *   short or encodes otherwise (base64) is beyond it. The provider's own correlation fields (call
 *   and response ids, API family, revision, tool name) may appear, and are not searched.
 * - **Key names** are matched only where they would give protected structure away. Reported:
 *   - the name of a member of a JSON object in the body, read from the text itself, so a member
 *     that a later one of the same name shadows (`{"a":{"redactions":[]},"a":null}`) counts too;
 *   - the same in a string of the body, or a member name, that is JSON text (after a byte order
 *     mark or other space, trimmed), parsed in turn at any depth, and in JSON text stringified
 *     twice or more (a string that is a JSON string literal, unwrapped up to 16 times);
 *   - in any other string or member name (prose then JSON, a markdown fence, a trailer line,
 *     NDJSON, a trailing comma), a name in quotes followed by a colon, the quotes escaped any number
 *     of times (`"binding":`, `\"binding\":`);
 *   - a member name that is a name in quotes (`{"\"redactions\"":[]}`).
 *   So `protected_audit` forwarded whole, or any of its members (`{"binding":{...}}`,
 *   `"redactions":[]`, `"idempotency_key":null`, whose values alone give nothing to find), as an
 *   object or as text, is reported. Not reported: a word in a text with no colon after it (the
 *   host's `Tell the customer which "binding" the book has.`); the tool's data, that is an object
 *   or JSON text (in any whitespace) equal to the `model_result` of one of `results` with no member
 *   name twice in it, or a copy of its canonical text (raw, escaped once or twice) inside other
 *   text, which are skipped whole. A pretty-printed copy inside other text is reported. An argument
 *   text echoed back (a stateless continuation) is searched like any other JSON text: a tool whose
 *   input has a member named `operation_id` or `binding` makes its echoed arguments report that
 *   name. Nor is a name reported that is split, re-cased, a look-alike or given as data (`[name,
 *   value]` pairs). `serialized` that is not JSON text is searched for each name in quotes
 *   (`"binding"`), anywhere.
 * - **Cost**: only an object with the member names of a `model_result` is canonicalized to compare
 *   it, and the key scan keeps its own stack, so a deeply nested body costs time in proportion to
 *   its length and does not overflow the call stack.
 */
export function findProtectedValues(serialized: string, results: readonly SealedResult[]): ProtectedValueHit[] {
  const hits: ProtectedValueHit[] = [];
  for (const result of results) {
    const values: Array<{ path: string; value: string }> = [];
    collect(result.protected_audit, '', values);
    for (const entry of values) {
      if (PUBLIC_PATHS.has(entry.path) || entry.value.length < 8) continue;
      for (const form of serializedForms(entry.value)) {
        if (serialized.includes(form)) {
          hits.push(entry);
          break;
        }
      }
    }
  }
  for (const key of protectedKeyNamesIn(serialized, results)) hits.push({ path: '#key', value: key });
  return hits;
}
