import type { JsonValue } from '@toolseal/contracts';
import { findCredentialValue, mayHoldCredentialValue } from '@toolseal/guard';
import { findInData } from './find-in-data.js';
import type { OutputViolation } from './output-violation.js';
import { revealTagText } from './reveal-tag-text.js';

/**
 * Where a string or a key of `data` holds a credential recognised by its form (`findCredentialValue`
 * of `@toolseal/guard`: a private key, a JWT, a provider API key, an `Authorization` credential, a
 * URL with a password), whatever key it sits under, TAG characters read as the ASCII they mirror: `credential_value` at a contract-safe pointer
 * under `prefix`. `jsonText` is a `JSON.stringify` or RFC 8785 text containing the value's text:
 * one pass over it decides the common case (no credential form anywhere); `null` walks every
 * string.
 */
export function findCredentialValues(data: JsonValue, jsonText: string | null, prefix = '/data'): OutputViolation[] {
  if (jsonText !== null && !mayHoldCredentialValue(revealTagText(jsonText, true))) return [];
  return findInData(data, prefix, 'credential_value', (value) => typeof value === 'string' && holdsCredentialValue(value));
}

/**
 * `findCredentialValue` of `@toolseal/guard` on `text` with its TAG characters read as the ASCII
 * they mirror (`revealTagText`): a token spelled in that invisible alphabet is found too.
 */
export function holdsCredentialValue(text: string): boolean {
  return findCredentialValue(revealTagText(text, true)) !== null;
}
