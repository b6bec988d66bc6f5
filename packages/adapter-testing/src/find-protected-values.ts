import type { SealedResult } from '@toolseal/contracts';

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

/** Key names that only `protected_audit` uses; none may appear in a payload. */
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

/**
 * Every protected value of `results` (principal reference, digests, operation id, idempotency key,
 * receipt, status reference, contract revisions) that occurs in `serialized`, raw or in any form
 * JSON serialization gives it (see `serializedForms`), plus every protected-only key name, as
 * `{ path: '#key', value }`. Empty means nothing protected leaked.
 *
 * Values shorter than 8 characters are skipped (they would match by accident); give test packages
 * distinctive protected values, as `fakeSealedResult` and the conformance kit do.
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
  for (const key of PROTECTED_KEY_NAMES) {
    if (serialized.includes(`"${key}"`) || serialized.includes(`\\"${key}\\"`)) {
      hits.push({ path: '#key', value: key });
    }
  }
  return hits;
}
