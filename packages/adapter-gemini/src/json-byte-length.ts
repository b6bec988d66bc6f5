/**
 * The UTF-8 byte length of `JSON.stringify(value)` (compact), for a value that already passed the
 * guard's `checkUntrustedValue` (plain data, acyclic, no lone surrogate, no `undefined`). Stops as
 * soon as the total passes `stopAfter` and returns that partial total, so an oversized value costs
 * no more than the limit. Iterative: no input can overflow the call stack.
 *
 * The guard bounds depth, items, keys, string lengths and node count of a parsed value but not its
 * serialized size; `maxArgumentBytes` is enforced with this.
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

function quotedStringBytes(text: string): number {
  let bytes = 2;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 || code === 0x5c) {
      bytes += 2; // \" and \\
    } else if (code < 0x20) {
      // \b \t \n \f \r have two-character escapes, other controls \u00XX.
      bytes += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
    } else if (code < 0x80) {
      bytes += 1;
    } else if (code < 0x800) {
      bytes += 2;
    } else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else {
      bytes += 3;
    }
  }
  return bytes;
}
