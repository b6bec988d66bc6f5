// Internal to @toolseal/digests (not exported by the package): the string writer of canonicalize.

const HEX = '0123456789abcdef';
// Called through the prototype function, never as `text.charCodeAt`: a method load on the string
// has one inline cache entry per string representation (internalized, sequential one- or two-byte,
// cons...). Values from JSON.parse bring representations that literals do not, that cache goes
// megamorphic, and the optimized loop then pays a full call per code unit: measured as half the
// throughput on the same value depending on which strings the process had seen before.
const charCodeAt = String.prototype.charCodeAt;
// For the ASCII code units JSON must escape (controls, quotation mark, reverse solidus), the
// letter after the reverse solidus (`u` for `\u00xx`); 0 for the others.
const ESCAPE_LETTER = new Uint8Array(0x60);
for (let unit = 0; unit < 0x20; unit++) ESCAPE_LETTER[unit] = 0x75;
ESCAPE_LETTER[0x08] = 0x62;
ESCAPE_LETTER[0x09] = 0x74;
ESCAPE_LETTER[0x0a] = 0x6e;
ESCAPE_LETTER[0x0c] = 0x66;
ESCAPE_LETTER[0x0d] = 0x72;
ESCAPE_LETTER[0x22] = 0x22;
ESCAPE_LETTER[0x5c] = 0x5c;

// 1 for every code unit the loop must not copy as it is: the ones JSON escapes and the surrogates
// (a pair is checked and copied whole). One table load and one branch that almost never goes the
// other way: testing `unit < 0x60` first branched on upper case, digits and punctuation against
// lower case at every unit, which text mispredicts often.
const NOT_VERBATIM = new Uint8Array(0x10000);
for (let unit = 0; unit < 0x60; unit++) if (ESCAPE_LETTER[unit] !== 0) NOT_VERBATIM[unit] = 1;
NOT_VERBATIM.fill(1, 0xd800, 0xe000);

/** `writeJsonString` result: the text holds an unpaired surrogate. */
export const LONE_SURROGATE = -1;
/** `writeJsonString` result: an escape did not fit; grow the buffer and write again. */
export const NO_ROOM = -2;

/**
 * Writes `text` as a JSON string (RFC 8785 §3.2.2.2, the ECMAScript `JSON.stringify` escaping:
 * `\b \t \n \f \r \" \\`, other controls as lowercase `\u00xx`, everything else verbatim).
 * `length` is `text.length`, passed by a caller that has it: reading it again measured 1% of the
 * benchmark time (a megamorphic load, as strings of many representations come by).
 * The caller guarantees room for `text.length + 3` units (quotes and one unit after); an escape
 * that would not fit returns `NO_ROOM` and the caller retries with a larger buffer. Returns the new position,
 * `LONE_SURROGATE`, or `NO_ROOM`.
 */
export function writeJsonString(buffer: Uint16Array, position: number, text: string, length = text.length): number {
  // Positions are below 2^30 (canonicalize caps its buffer there): `| 0` keeps them int32.
  let at = position | 0;
  const count = length | 0;
  buffer[at++] = 0x22;
  // Kept small enough to be inlined into canonicalize: escapes and surrogate pairs are written by a
  // call each, and the units between them stay in this loop.
  for (let index = 0; index < count; index++) {
    const unit = charCodeAt.call(text, index);
    // Stored before the test (15% less time per unit in a loop microbenchmark); an escape or a
    // surrogate pair overwrites it.
    buffer[at] = unit;
    if (NOT_VERBATIM[unit] === 0) {
      at++;
      continue;
    }
    const next = (unit < 0x60 ? writeEscape(buffer, at, unit, count - index) : writeSurrogatePair(buffer, at, text, index, count)) | 0;
    if (next < 0) return next;
    at = next;
    if (unit >= 0xd800) index++;
  }
  buffer[at++] = 0x22;
  return at;
}

/** `\x`, or `\u00xx` for controls without a short escape; `remaining` units are left to write. */
function writeEscape(buffer: Uint16Array, position: number, unit: number, remaining: number): number {
  // Room for this escape, the rest unescaped, the closing quote and the caller's colon.
  if (buffer.length - position < remaining + 7) return NO_ROOM;
  let at = position;
  const letter = ESCAPE_LETTER[unit] as number;
  buffer[at++] = 0x5c;
  buffer[at++] = letter;
  if (letter === 0x75) {
    buffer[at++] = 0x30;
    buffer[at++] = 0x30;
    buffer[at++] = HEX.charCodeAt(unit >> 4);
    buffer[at++] = HEX.charCodeAt(unit & 15);
  }
  return at;
}

/** The surrogate pair starting at `text[index]` (`length` long), or LONE_SURROGATE. */
function writeSurrogatePair(buffer: Uint16Array, position: number, text: string, index: number, length: number): number {
  const high = charCodeAt.call(text, index);
  // A high surrogate followed by a low surrogate is one code point; anything else is lone.
  if (high > 0xdbff || index + 1 === length) return LONE_SURROGATE;
  const low = charCodeAt.call(text, index + 1);
  if (low < 0xdc00 || low > 0xdfff) return LONE_SURROGATE;
  buffer[position] = high;
  buffer[position + 1] = low;
  return position + 2;
}
