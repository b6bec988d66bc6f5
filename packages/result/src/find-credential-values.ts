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
  if (jsonText !== null && !mayHoldCredentialValue(jsonText) && !tagReadingsMayHold(jsonText)) return [];
  return findInData(data, prefix, 'credential_value', (value) => typeof value === 'string' && holdsCredentialValue(value));
}

/**
 * `findCredentialValue` of `@toolseal/guard` on `text`, and on each way a reader may take its TAG
 * characters (`revealTagText`): the runs read into the text around them (a tokenizer reads
 * `ghp_` followed by a TAG-spelled body as one token), and each run read as a word of its own (a
 * token spelled wholly in TAG characters right after a word). A token spelled in that invisible
 * alphabet is found too.
 */
export function holdsCredentialValue(text: string): boolean {
  if (findCredentialValue(text) !== null) return true;
  const joined = revealTagText(text);
  if (joined === text) return false;
  return findCredentialValue(joined) !== null || findCredentialValue(revealTagText(text, true)) !== null;
}

/** `mayHoldCredentialValue` of both readings of a text holding TAG characters; false without them. */
function tagReadingsMayHold(text: string): boolean {
  const joined = revealTagText(text);
  return joined !== text && (mayHoldCredentialValue(joined) || mayHoldCredentialValue(revealTagText(text, true)));
}
