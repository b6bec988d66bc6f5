// Internal to @toolseal/digests (not exported by the package): the string writer of canonicalize.

const HEX = '0123456789abcdef';
// Called through the prototype function, never as `text.charCodeAt`: a method load on the string
// has one inline cache entry per string representation (internalized, sequential one- or two-byte,
// cons...). Values from JSON.parse bring representations that literals do not, that cache goes
// megamorphic, and the optimized loop then pays a full call per code unit: measured as half the
// throughput on the same value depending on which strings the process had seen before.
const charCodeAt = String.prototype.charCodeAt;
// 1 for the ASCII code units JSON must escape: controls, quotation mark, reverse solidus.
const NEEDS_ESCAPE = new Uint8Array(0x60);
for (let unit = 0; unit < 0x20; unit++) NEEDS_ESCAPE[unit] = 1;
NEEDS_ESCAPE[0x22] = 1;
NEEDS_ESCAPE[0x5c] = 1;

/** `writeJsonString` result: the text holds an unpaired surrogate. */
export const LONE_SURROGATE = -1;
/** `writeJsonString` result: an escape did not fit; grow the buffer and write again. */
export const NO_ROOM = -2;

/**
 * Writes `text` as a JSON string (RFC 8785 §3.2.2.2, the ECMAScript `JSON.stringify` escaping:
 * `\b \t \n \f \r \" \\`, other controls as lowercase `\u00xx`, everything else verbatim).
 * The caller guarantees room for `text.length + 3` units (quotes and one unit after); an escape
 * that would not fit returns `NO_ROOM` and the caller retries with a larger buffer. Returns the new position,
 * `LONE_SURROGATE`, or `NO_ROOM`.
 */
export function writeJsonString(buffer: Uint16Array, position: number, text: string): number {
  let at = position;
  const length = text.length;
  buffer[at++] = 0x22;
  for (let index = 0; index < length; index++) {
    const unit = charCodeAt.call(text, index);
    if (unit < 0x60) {
      if (NEEDS_ESCAPE[unit] === 0) {
        buffer[at++] = unit;
        continue;
      }
      // Room for this escape, the rest unescaped, the closing quote and the caller's colon.
      if (buffer.length - at < length - index + 7) return NO_ROOM;
      buffer[at++] = 0x5c;
      switch (unit) {
        case 0x22:
          buffer[at++] = 0x22;
          break;
        case 0x5c:
          buffer[at++] = 0x5c;
          break;
        case 0x08:
          buffer[at++] = 0x62;
          break;
        case 0x09:
          buffer[at++] = 0x74;
          break;
        case 0x0a:
          buffer[at++] = 0x6e;
          break;
        case 0x0c:
          buffer[at++] = 0x66;
          break;
        case 0x0d:
          buffer[at++] = 0x72;
          break;
        default:
          buffer[at++] = 0x75;
          buffer[at++] = 0x30;
          buffer[at++] = 0x30;
          buffer[at++] = HEX.charCodeAt(unit >> 4);
          buffer[at++] = HEX.charCodeAt(unit & 15);
      }
      continue;
    }
    if (unit < 0xd800 || unit > 0xdfff) {
      buffer[at++] = unit;
      continue;
    }
    // A high surrogate followed by a low surrogate is one code point; anything else is lone.
    if (unit > 0xdbff || index + 1 === length) return LONE_SURROGATE;
    const low = charCodeAt.call(text, index + 1);
    if (low < 0xdc00 || low > 0xdfff) return LONE_SURROGATE;
    buffer[at++] = unit;
    buffer[at++] = low;
    index++;
  }
  buffer[at++] = 0x22;
  return at;
}
