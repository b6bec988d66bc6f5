import type { JsonValue } from '@toolseal/contracts';
import type { GuardOutcome } from './guard-violation.js';
import { resolveLimitsForCall, type JsonLimits } from './json-limits.js';
import { scanJsonTextWithin } from './scan-json-text.js';
import { uint8ArrayView } from './uint8-array-view.js';
import { utf8LengthWithin } from './utf8-byte-length.js';

// `fatal`: invalid UTF-8 is an error, not U+FFFD. `ignoreBOM`: keep a BOM in the text so the scan
// rejects it, instead of the decoder silently dropping it.
const UTF8_DECODER = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function violation(rule: string): GuardOutcome<never> {
  return { ok: false, violation: { rule, path: '' } };
}

/**
 * Parses untrusted JSON text (a string, or UTF-8 bytes) under `limits`, in this order:
 * 1. the UTF-8 byte length, before anything else looks at the input;
 * 2. for bytes, strict UTF-8 decoding;
 * 3. one scan of the text that enforces depth, item, key, string-length and node limits and
 *    rejects duplicate keys (compared decoded), `FORBIDDEN_KEYS` (`__proto__`, `toString`...), lone
 *    surrogates (raw or escaped), a byte order mark and anything that is not RFC 8259 JSON;
 * 4. only then `JSON.parse`.
 * An oversized or over-deep input is therefore rejected without ever being parsed. Bytes are
 * measured and decoded through the typed-array intrinsics, so a Uint8Array subclass whose
 * `byteLength`, `buffer` or `byteOffset` lie is read as the memory it really views; anything that is
 * neither a string nor a genuine Uint8Array (a `Buffer` is one) is `malformed_json`. Never throws on
 * any input; invalid limits throw a `TypeError` naming the limit (`resolveJsonLimits`), whatever the
 * input.
 */
export function parseUntrustedJson(input: string | Uint8Array, limits?: Partial<JsonLimits>): GuardOutcome<JsonValue> {
  const resolved = resolveLimitsForCall(limits);
  let text: string;
  if (typeof input === 'string') {
    if (!utf8LengthWithin(input, resolved.maxBytes)) return violation('max_bytes');
    text = input;
  } else {
    const bytes = uint8ArrayView(input);
    if (bytes === undefined) return violation('malformed_json');
    if (bytes.byteLength > resolved.maxBytes) return violation('max_bytes');
    try {
      text = UTF8_DECODER.decode(bytes);
    } catch {
      return violation('invalid_utf8');
    }
  }

  const found = scanJsonTextWithin(text, resolved);
  if (found !== null) return { ok: false, violation: found };
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch {
    // Unreachable while the scan is exactly as strict as JSON.parse; kept so a disagreement is a
    // rejection, never a crash.
    return violation('malformed_json');
  }
}
