import type { JsonValue } from '@toolseal/contracts';
import { isLiftableKeyName, type SensitiveKeyHit } from '@toolseal/guard';
import { findInData } from './find-in-data.js';
import type { OutputViolation } from './output-violation.js';
import type { RegisteredTool } from './tool-registry.js';

// A string value that is JSON text as a whole: an object or array, after JSON's own whitespace.
const JSON_CONTAINER_START = /^[\t\n\r ]*[{[]/;
// The same seen in a JSON text holding the string: its opening quote, JSON's whitespace as its
// escapes, then `{` or `[`. No match anywhere: no string of the value can be JSON text.
const JSON_CONTAINER_IN_TEXT = /"(?: |\\[tnr])*[{[]/;
// JSON inside JSON inside a string...: levels read before giving up (each level's text is shorter
// than the one holding it, so the work stays within this many passes over the data).
const MAX_JSON_LEVELS = 4;

/**
 * Where a string of `data` is, as a whole, the JSON text of an object or array holding a key a
 * credential or control rule of the tool's key scan flags (`password`, `session_token`,
 * `approval`, `operation_id`...: the names no host can lift), at any depth, also in JSON strings within it (up to four levels):
 * `sensitive_key` at the string's contract-safe pointer under `prefix`. A handler that returns the
 * downstream's whole object as a string (`JSON.stringify(response)`) would otherwise pass every
 * field of it through the contract's exact schema and the recursive key rule (spec 000: "reject
 * credentials and control fields recursively"). A JSON fragment inside prose is text, not
 * judged here. `jsonText` (a JSON text of `data`) lets the common case skip the walk; `null` walks.
 */
export function findSensitiveKeysInJsonStrings(tool: RegisteredTool, data: JsonValue, jsonText: string | null, prefix = '/data'): OutputViolation[] {
  if (jsonText !== null && !JSON_CONTAINER_IN_TEXT.test(jsonText)) return [];
  return findInData(data, prefix, 'sensitive_key', (value, isKey) => !isKey && typeof value === 'string' && jsonTextHoldsSensitiveKey(tool, value, 1));
}

/**
 * A key a credential or control rule flags (`password`, `session_token`, `operation_id`,
 * `approval`: never liftable), as opposed to vocabulary that is also business language
 * (`recovery`, `instructions`, liftable) and keys flagged only for not being ASCII (`prénom`): in a
 * string those are text like any other, which the model reads inside the data block.
 */
function isLeakedKey(hit: SensitiveKeyHit): boolean {
  return hit.matched !== 'non_ascii_key' && hit.matched !== 'invisible_key' && !isLiftableKeyName(hit.key);
}

function jsonTextHoldsSensitiveKey(tool: RegisteredTool, text: string, level: number): boolean {
  if (!JSON_CONTAINER_START.test(text)) return false;
  let parsed: unknown;
  try {
    // Iterative in V8: no nesting overflows the stack. Duplicate keys and `__proto__` are own
    // keys of the result, so the scan sees every name the text holds.
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null) return false;
  if (tool.scanSensitiveKeys(parsed).some(isLeakedKey)) return true;
  if (level >= MAX_JSON_LEVELS) return false;
  const stack: unknown[] = [parsed];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (typeof value === 'string') {
      if (jsonTextHoldsSensitiveKey(tool, value, level + 1)) return true;
    } else if (typeof value === 'object' && value !== null) {
      for (const child of Object.values(value)) stack.push(child);
    }
  }
  return false;
}
