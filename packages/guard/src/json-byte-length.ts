/** Strings `JSON.stringify` writes as they are: printable ASCII except the quotation mark and reverse solidus. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// Through the prototype: a method load on strings of many representations goes megamorphic.
const charCodeAt = String.prototype.charCodeAt;

/**
 * The UTF-8 length of `JSON.stringify(text)`: the quotes, two bytes for each short escape
 * (`\" \\ \b \t \n \f \r`), six for every other control character and for a lone surrogate
 * (written as `\uXXXX`), and the UTF-8 length of everything else.
 */
export function jsonStringByteLength(text: string): number {
  const length = text.length;
  if (PLAIN_ASCII.test(text)) return length + 2;
  let bytes = 2;
  for (let index = 0; index < length; index++) {
    const unit = charCodeAt.call(text, index);
    if (unit < 0x80) {
      if (unit >= 0x20) bytes += unit === 0x22 || unit === 0x5c ? 2 : 1;
      else bytes += unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
    } else if (unit < 0x800) {
      bytes += 2;
    } else if (unit < 0xd800 || unit > 0xdfff) {
      bytes += 3;
    } else if (unit <= 0xdbff && index + 1 < length && (charCodeAt.call(text, index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else {
      bytes += 6;
    }
  }
  return bytes;
}

/** The length of `JSON.stringify(number)` for a finite number (`-0` is written `0`). */
export function jsonNumberLength(number: number): number {
  if ((number | 0) === number) {
    // 32-bit integers: count the digits without making the string.
    let digits = number < 0 ? 2 : 1;
    for (let rest = number < 0 ? -number : number; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    return digits;
  }
  return String(number).length;
}

/**
 * The UTF-8 length of `JSON.stringify(value)` for a JSON value (plain objects and arrays, strings,
 * finite numbers, booleans, `null`), counted without building the text. Stops as soon as the count
 * passes `stopAfter` and returns that partial count, so an oversized value costs no more than the
 * limit. The walk is iterative: nesting never overflows the stack. For a value `checkUntrustedValue`
 * accepted, this is exactly `Buffer.byteLength(JSON.stringify(value))`.
 */
export function jsonByteLength(value: unknown, stopAfter = Number.POSITIVE_INFINITY): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    switch (typeof current) {
      case 'string':
        bytes += jsonStringByteLength(current);
        break;
      case 'number':
        bytes += jsonNumberLength(current);
        break;
      case 'boolean':
        bytes += current ? 4 : 5;
        break;
      case 'object':
        if (current === null) {
          bytes += 4;
        } else if (Array.isArray(current)) {
          const items: readonly unknown[] = current;
          bytes += items.length === 0 ? 2 : items.length + 1;
          for (let index = items.length - 1; index >= 0; index--) stack.push(items[index]);
        } else {
          const record = current as Record<string, unknown>;
          const keys = Object.keys(record);
          bytes += keys.length === 0 ? 2 : keys.length + 1;
          for (const key of keys) {
            bytes += jsonStringByteLength(key) + 1;
            stack.push(record[key]);
          }
        }
        break;
      default:
        // Not JSON (undefined, functions, symbols, BigInt): counted as `null`, an approximation
        // for values no JSON parser produces.
        bytes += 4;
    }
    if (bytes > stopAfter) return bytes;
  }
  return bytes;
}
