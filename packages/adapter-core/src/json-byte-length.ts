import { utf8ByteLength } from '@toolseal/guard';

/**
 * The UTF-8 byte length of `JSON.stringify(value)` (compact), for a value that already passed the
 * guard's `checkUntrustedValue` (plain data, acyclic, no lone surrogate, no `undefined`). Stops as
 * soon as the total passes `stopAfter` and returns that partial total, so an oversized value costs
 * no more than the limit. Iterative: no input can overflow the call stack.
 *
 * The guard's `checkUntrustedValue` bounds this size itself (by `maxBytes`) while it walks; this is
 * for measuring a value that has already passed it.
 */
export function jsonByteLength(value: unknown, stopAfter = Number.POSITIVE_INFINITY): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      bytes += quotedStringBytes(current);
    } else if (typeof current === 'number' || typeof current === 'boolean') {
      bytes += String(current).length;
    } else if (current === null) {
      bytes += 4;
    } else if (Array.isArray(current)) {
      const items: readonly unknown[] = current;
      bytes += 2 + Math.max(0, items.length - 1);
      for (const item of items) pending.push(item);
    } else if (typeof current === 'object') {
      const keys = Object.keys(current);
      bytes += 2 + Math.max(0, keys.length - 1) + keys.length; // braces, commas, colons
      for (const key of keys) {
        bytes += quotedStringBytes(key);
        pending.push((current as Record<string, unknown>)[key]);
      }
    }
    if (bytes > stopAfter) return bytes;
  }
  return bytes;
}

/** Bytes of `text` as a JSON string literal: quotes, escapes, and UTF-8 for everything else. */
function quotedStringBytes(text: string): number {
  // Every escaped character is ASCII (one UTF-8 byte), so its escape adds the rest: one byte for
  // \" \\ \b \t \n \f \r, five for \u00XX.
  let escapeBytes = 0;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 || code === 0x5c) {
      escapeBytes += 1;
    } else if (code < 0x20) {
      escapeBytes += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 1 : 5;
    }
  }
  return 2 + escapeBytes + utf8ByteLength(text);
}
