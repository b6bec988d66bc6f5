import type { JsonValue } from '@toolseal/contracts';
import { findCredentialValue, mayHoldCredentialValue } from '@toolseal/guard';
import { findInData } from './find-in-data.js';
import type { OutputViolation } from './output-violation.js';

/**
 * Where a string or a key of `data` holds a credential recognised by its form (`findCredentialValue`
 * of `@toolseal/guard`: a private key, a JWT, a provider API key, an `Authorization` credential, a
 * URL with a password), whatever key it sits under: `credential_value` at a contract-safe pointer
 * under `prefix`. `jsonText` is a `JSON.stringify` or RFC 8785 text containing the value's text:
 * one pass over it decides the common case (no credential form anywhere); `null` walks every
 * string.
 */
export function findCredentialValues(data: JsonValue, jsonText: string | null, prefix = '/data'): OutputViolation[] {
  if (jsonText !== null && !mayHoldCredentialValue(jsonText)) return [];
  return findInData(data, prefix, 'credential_value', (value) => typeof value === 'string' && findCredentialValue(value) !== null);
}
