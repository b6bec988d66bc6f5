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

/** Whether `text` may be JSON text of an object or an array (what a payload carries as a string). */
function mayBeJsonStructure(text: string): boolean {
  const first = text.trimStart()[0];
  return first === '{' || first === '[';
}

/** The canonical text of `value`, or `undefined` when it has none (a value JSON cannot express). */
function canonicalTextOf(value: unknown): string | undefined {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
}

/**
 * Adds to `into` every name in `names` that `value` (a value parsed from JSON) uses as the name of
 * an object member, at any depth, and inside any string of it that is JSON text of an object or an
 * array, parsed in turn (the text of a tool result, or of anything an adapter serialized into a
 * string, escaped once or many times over). A value whose canonical text is in `sealed`, as an
 * object or as JSON text, is the `model_result` of one of the packages: skipped whole, as the
 * tool's own data, which may use these names freely (a book's `binding`), is in it and nothing
 * else is (any member added to it makes it another value, which is searched).
 */
function collectKeyNames(value: unknown, names: ReadonlySet<string>, sealed: ReadonlySet<string>, into: Set<string>): void {
  if (typeof value === 'string') {
    if (sealed.has(value) || !mayBeJsonStructure(value)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return;
    }
    collectKeyNames(parsed, names, sealed, into);
  } else if (Array.isArray(value)) {
    for (const item of value) collectKeyNames(item, names, sealed, into);
  } else if (typeof value === 'object' && value !== null) {
    const text = canonicalTextOf(value);
    if (text !== undefined && sealed.has(text)) return;
    for (const [key, item] of Object.entries(value)) {
      if (names.has(key)) into.add(key);
      collectKeyNames(item, names, sealed, into);
    }
  }
}

/**
 * The protected-only key names (`PROTECTED_KEY_NAMES`) that `serialized` uses as member names, in
 * the order of that list. `serialized` that is not JSON text (a raw body of another kind) is
 * searched for each name in quotes, raw or JSON-escaped, as no structure can be told from words there.
 */
function protectedKeyNamesIn(serialized: string, results: readonly SealedResult[]): string[] {
  let body: unknown;
  try {
    body = JSON.parse(serialized);
  } catch {
    return PROTECTED_KEY_NAMES.filter((key) => serialized.includes(`"${key}"`) || serialized.includes(`\\"${key}\\"`));
  }
  const sealed = new Set<string>();
  for (const result of results) {
    const text = canonicalTextOf(result.model_result);
    if (text !== undefined) sealed.add(text);
  }
  const found = new Set<string>();
  collectKeyNames(body, new Set(PROTECTED_KEY_NAMES), sealed, found);
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
 * - **Key names** are matched only where they would give protected structure away: as the name of
 *   a member of a JSON object in the body, or in JSON text of an object or an array that the body
 *   carries as a string (the text of a tool result, an argument text, anything an adapter
 *   serialized into a string), parsed in turn at any depth. So `protected_audit` forwarded whole, or
 *   any of its members (`{"binding":{...}}`, `"redactions":[]`, `"idempotency_key":null`, whose
 *   values alone give nothing to find), as an object or as text, is reported. A name in a text is
 *   not: the host's own text (`Tell the customer which "binding" the book has.`), a note. Nor is
 *   one in the tool's data: a value equal to the `model_result` of one of `results` (as an object,
 *   or as JSON text of it, in any whitespace) is skipped whole, as it holds the tool's data and
 *   nothing else. An argument text echoed back (a stateless continuation) is searched like any
 *   other JSON text: a tool whose input has a member named `operation_id` or `binding` makes its
 *   echoed arguments report that name. `serialized` that is not JSON text is searched for each name
 *   in quotes (`"binding"`), anywhere.
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
