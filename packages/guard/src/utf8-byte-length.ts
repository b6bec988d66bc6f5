/**
 * The UTF-8 length of `text`, counting each lone surrogate as the 3 bytes of the U+FFFD an encoder
 * would write. Stops counting as soon as the total passes `stopAfter` and returns that partial
 * total, so an oversized string costs no more than the limit.
 */
export function utf8ByteLength(text: string, stopAfter = Number.POSITIVE_INFINITY): number {
  const length = text.length;
  let bytes = 0;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      bytes += 1;
    } else if (code < 0x800) {
      bytes += 2;
    } else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else {
      bytes += 3;
    }
    if (bytes > stopAfter) return bytes;
  }
  return bytes;
}

/**
 * True when `text` encodes to at most `maxBytes` UTF-8 bytes. Decides from `text.length` alone when
 * it can (every UTF-16 code unit is 1 to 3 bytes), otherwise counts and stops at the limit.
 */
export function utf8LengthWithin(text: string, maxBytes: number): boolean {
  const length = text.length;
  if (length > maxBytes) return false;
  if (length * 3 <= maxBytes) return true;
  return utf8ByteLength(text, maxBytes) <= maxBytes;
}
