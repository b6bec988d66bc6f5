import { mayHoldRoundedInteger } from '@toolseal/adapter-core';
import type { JsonValue, RawArguments } from '@toolseal/contracts';
import { copyUntrustedValue, parseUntrustedJson, type GuardOutcome, type JsonLimits } from '@toolseal/guard';
import { deepFreeze } from '@toolseal/proposal';

const MALFORMED: GuardOutcome<JsonValue> = Object.freeze({
  ok: false,
  violation: Object.freeze({ rule: 'malformed_json', path: '' }),
});

const ROUNDED: GuardOutcome<JsonValue> = Object.freeze({
  ok: false,
  violation: Object.freeze({ rule: 'non_json_value', path: '' }),
});

/**
 * The guard gate: turns a call's raw arguments into a private, deeply frozen JSON value, with the
 * tool's limits checked before anything else happens (bytes and depth before any parse; duplicate
 * keys, `__proto__` and friends, lone surrogates refused). JSON text is parsed into fresh objects;
 * a value an SDK already parsed is copied by the same walk that checks it (its JSON size too), each
 * property read once, so what was judged is exactly what is kept, and neither the provider SDK's
 * object nor anything holding it can change the arguments afterwards. An array carrying anything
 * besides its items is refused (`non_json_value`), never passed on or silently dropped, and so is
 * a parsed value holding an integer beyond 2^53 (`mayHoldRoundedInteger` of @toolseal/adapter-core).
 *
 * Never throws: anything that is not one of the two `RawArguments` forms (exactly `format` and
 * `text`, or `format` and `value`) is `malformed_json`.
 */
export function readArguments(raw: RawArguments, limits: Readonly<JsonLimits>): GuardOutcome<JsonValue> {
  try {
    if (typeof raw !== 'object' || raw === null) return MALFORMED;
    // Exactly `format` and its one member: `{ format: 'json_text', text, value }` is no form of
    // `RawArguments` (the tool-call schema refuses it), not text with a value to ignore.
    if (Object.keys(raw).length !== 2) return MALFORMED;
    // Each member read once: a getter cannot pass the check with one value and be used with another.
    const { format } = raw;
    // The form's own member: an inherited `text` or `value` is not what the provider sent.
    const member = format === 'json_text' ? 'text' : format === 'json_value' ? 'value' : null;
    if (member === null || !Object.hasOwn(raw, member)) return MALFORMED;
    if (format === 'json_text') {
      const text = raw.text;
      if (typeof text !== 'string') return MALFORMED;
      const parsed = parseUntrustedJson(text, limits);
      return parsed.ok ? { ok: true, value: deepFreeze(parsed.value) } : parsed;
    }
    if (format === 'json_value') {
      // The walk also bounds the UTF-8 size of the value's JSON text by `maxBytes`, without building it.
      const copied = copyUntrustedValue(raw.value, limits);
      if (!copied.ok) return copied;
      // An integer beyond 2^53 in a value an SDK parsed may be another number rounded
      // (9007199254740993 arrives as 9007199254740992): refused as the guard refuses it in text.
      // The adapters' collector refuses it already; checked again here so that the rule does not
      // rest on every adapter (one that hands on values without the collector, say).
      if (mayHoldRoundedInteger(copied.value, limits, true)) return ROUNDED;
      return { ok: true, value: deepFreeze(copied.value) };
    }
    return MALFORMED;
  } catch {
    // Only a hostile host object (a proxy with throwing traps) gets here.
    return MALFORMED;
  }
}
