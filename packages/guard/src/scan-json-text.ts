import { contractSafePointer } from './contract-safe-pointer.js';
import { isForbiddenKey } from './forbidden-keys.js';
import type { GuardViolation } from './guard-violation.js';
import { resolveLimitsForCall, type JsonLimits } from './json-limits.js';
import { utf8LengthWithin } from './utf8-byte-length.js';

// One pass over the text, validating RFC 8259 grammar exactly as strictly as `JSON.parse` does,
// while enforcing the limits and the rules `JSON.parse` does not know: duplicate keys (compared
// after decoding, so "a" and "\u0061" collide), forbidden keys, lone surrogates, a leading BOM and
// numbers a double cannot hold as written (`JSON.parse` would round them silently).
// It builds no values: `JSON.parse` (native, fast) runs afterwards on text known to be safe.

const ARRAY = 0;
const OBJECT = 1;

// What the scanner expects next.
const EXPECT_VALUE = 0;
const EXPECT_VALUE_OR_CLOSE = 1; // just after '['
const EXPECT_SEPARATOR = 2; // after a value: ',' or a close, or the end of the text at depth 0
const EXPECT_KEY_OR_CLOSE = 3; // just after '{'
const EXPECT_KEY = 4; // after ',' in an object
const EXPECT_COLON = 5;

// Up to this many keys an object's duplicates are found by a linear search; then by a Set.
const LINEAR_KEY_LIMIT = 12;

// Results of the string scanners other than a position.
const STRING_MALFORMED = -1;
const STRING_LONE_SURROGATE = -2;
const STRING_TOO_LONG = -3;

const CODE_QUOTE = 0x22;
const CODE_BACKSLASH = 0x5c;

// Characters a string may hold as they are: not a quote, backslash, control character or surrogate.
const PLAIN_RUN = /[^"\\\u0000-\u001f\ud800-\udfff]*/y;
const HAND_SCANNED_RUN = 16;

function isPlain(code: number): boolean {
  return code >= 0x20 && code !== CODE_QUOTE && code !== CODE_BACKSLASH && (code < 0xd800 || code > 0xdfff);
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return -1;
}

/** The code unit of the `\uXXXX` escape whose `u` is at `position`, or -1 when it is malformed. */
function unicodeEscape(text: string, position: number): number {
  const a = hexValue(text.charCodeAt(position + 1));
  const b = hexValue(text.charCodeAt(position + 2));
  const c = hexValue(text.charCodeAt(position + 3));
  const d = hexValue(text.charCodeAt(position + 4));
  if ((a | b | c | d) < 0) return -1;
  return (a << 12) | (b << 8) | (c << 4) | d;
}

function simpleEscape(code: number): number {
  switch (code) {
    case 0x22:
      return 0x22;
    case 0x5c:
      return 0x5c;
    case 0x2f:
      return 0x2f;
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    default:
      return -1;
  }
}

interface StringScan {
  /** Position after the closing quote, or a negative STRING_* code. */
  end: number;
  /** The decoded string, when the caller asked for it (keys). */
  decoded: string;
}

/**
 * Scans the string whose opening quote is at `start`. Returns the position after the closing
 * quote, or a negative STRING_* code. Decodes into `scan.decoded` only when `decode` is set.
 */
function scanString(text: string, start: number, maxLength: number, decode: boolean, scan: StringScan): number {
  let position = start + 1;
  let decodedLength = 0;
  let runStart = position;
  let decoded = '';
  for (;;) {
    let code = text.charCodeAt(position);
    if (isPlain(code)) {
      // A run of ordinary characters: a few by hand (most keys and values are short), then the
      // rest by a sticky regular expression, which is several times faster on long text.
      let run = 1;
      position++;
      while (run < HAND_SCANNED_RUN) {
        code = text.charCodeAt(position);
        if (!isPlain(code)) break;
        position++;
        run++;
      }
      if (run === HAND_SCANNED_RUN) {
        PLAIN_RUN.lastIndex = position;
        PLAIN_RUN.test(text);
        run += PLAIN_RUN.lastIndex - position;
        position = PLAIN_RUN.lastIndex;
      }
      decodedLength += run;
      if (decodedLength > maxLength) return STRING_TOO_LONG;
      continue;
    }
    if (code === CODE_QUOTE) {
      if (decode) decoded += text.slice(runStart, position);
      scan.decoded = decoded;
      return position + 1;
    }
    if (code === CODE_BACKSLASH) {
      if (decode) decoded += text.slice(runStart, position);
      const escape = text.charCodeAt(position + 1);
      if (escape === 0x75) {
        const unit = unicodeEscape(text, position + 1);
        if (unit < 0) return STRING_MALFORMED;
        if (unit >= 0xd800 && unit <= 0xdfff) {
          // A surrogate escape must be a high one immediately followed by an escaped low one.
          if (unit >= 0xdc00) return STRING_LONE_SURROGATE;
          if (text.charCodeAt(position + 6) !== CODE_BACKSLASH || text.charCodeAt(position + 7) !== 0x75) {
            return STRING_LONE_SURROGATE;
          }
          const low = unicodeEscape(text, position + 7);
          if (low < 0) return STRING_MALFORMED;
          if (low < 0xdc00 || low > 0xdfff) return STRING_LONE_SURROGATE;
          if (decode) decoded += String.fromCharCode(unit, low);
          decodedLength += 2;
          position += 12;
        } else {
          if (decode) decoded += String.fromCharCode(unit);
          decodedLength += 1;
          position += 6;
        }
      } else {
        const unit = simpleEscape(escape);
        if (unit < 0) return STRING_MALFORMED;
        if (decode) decoded += String.fromCharCode(unit);
        decodedLength += 1;
        position += 2;
      }
      if (decodedLength > maxLength) return STRING_TOO_LONG;
      runStart = position;
      continue;
    }
    if (code < 0x20 || Number.isNaN(code)) return STRING_MALFORMED; // control character or end of text
    // Otherwise a raw surrogate: it must be a high one immediately followed by a raw low one.
    if (code >= 0xdc00 || (text.charCodeAt(position + 1) & 0xfc00) !== 0xdc00) return STRING_LONE_SURROGATE;
    position += 2;
    decodedLength += 2;
    if (decodedLength > maxLength) return STRING_TOO_LONG;
  }
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

// A number without an exponent and with at most this many digits always survives parsing: any
// decimal of 15 significant digits in the normal range round-trips through a double (DBL_DIG), and
// without an exponent such a number is between 1e-15 and 1e15. Only longer numbers, and those with
// an exponent (which may also overflow or underflow), pay for the exact check.
const ALWAYS_EXACT_DIGITS = 15;

/**
 * The decimal value of a JSON number lexeme (or of `String(number)`, which has the same grammar) as
 * `<significant digits>e<exponent>`, with value `0.<digits> × 10^<exponent>`; `0` for any zero.
 * Two lexemes denote the same decimal exactly when their forms are equal.
 */
function normalizedDecimal(lexeme: string): string {
  let mark = lexeme.indexOf('e');
  if (mark < 0) mark = lexeme.indexOf('E');
  const end = mark < 0 ? lexeme.length : mark;
  const exponent = mark < 0 ? 0 : Number(lexeme.slice(mark + 1));
  const begin = lexeme.charCodeAt(0) === 0x2d ? 1 : 0;
  const point = lexeme.indexOf('.');
  const digits = point < 0 || point > end ? lexeme.slice(begin, end) : lexeme.slice(begin, point) + lexeme.slice(point + 1, end);
  const integerDigits = (point < 0 || point > end ? end : point) - begin;
  let lead = 0;
  while (lead < digits.length && digits.charCodeAt(lead) === 0x30) lead++;
  let trail = digits.length;
  while (trail > lead && digits.charCodeAt(trail - 1) === 0x30) trail--;
  if (lead === trail) return '0';
  return `${digits.slice(lead, trail)}e${exponent + integerDigits - lead}`;
}

/**
 * Whether the decimal value `lexeme` spells is the one `JSON.parse` gives back: the parsed double
 * is finite and its shortest representation (`String`) has the same significant digits and decimal
 * exponent. `5999.9999999999999` (read as 6000), `9007199254740993` (…992), `1e400` (Infinity) and
 * `1e-400` (0) do not survive; `1.10`, `1e2`, `-0`, `0.30000000000000004` and `5e-324` do.
 */
function survivesParsing(lexeme: string): boolean {
  const parsed = Number(lexeme);
  if (!Number.isFinite(parsed)) return false;
  const shortest = String(parsed);
  // Text serialized by JavaScript already is the shortest representation.
  return shortest === lexeme || normalizedDecimal(shortest) === normalizedDecimal(lexeme);
}

/**
 * Scans the number starting at `start` (RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
 * Returns the position after it, -1 when malformed, -2 when its decimal value does not survive
 * parsing into a double (see `survivesParsing`).
 */
function scanNumber(text: string, start: number): number {
  let position = start;
  if (text.charCodeAt(position) === 0x2d) position++;
  const integerStart = position;
  const first = text.charCodeAt(position);
  if (first === 0x30) {
    position++;
  } else if (first >= 0x31 && first <= 0x39) {
    position++;
    while (isDigit(text.charCodeAt(position))) position++;
  } else {
    return -1;
  }
  let digits = position - integerStart;
  if (text.charCodeAt(position) === 0x2e) {
    position++;
    const fractionStart = position;
    if (!isDigit(text.charCodeAt(position))) return -1;
    while (isDigit(text.charCodeAt(position))) position++;
    digits += position - fractionStart;
  }
  const exponent = text.charCodeAt(position);
  if (exponent === 0x65 || exponent === 0x45) {
    position++;
    const sign = text.charCodeAt(position);
    if (sign === 0x2b || sign === 0x2d) position++;
    if (!isDigit(text.charCodeAt(position))) return -1;
    while (isDigit(text.charCodeAt(position))) position++;
  } else if (digits <= ALWAYS_EXACT_DIGITS) {
    return position;
  }
  // JSON.parse would silently round the value (`5999.9999999999999` is 6000, `1e400` Infinity):
  // a different number from the one written, which no contract check may then see (spec 002: never
  // repair a proposal; RFC 7493 §2.2: no more precision or magnitude than an IEEE 754 double).
  return survivesParsing(text.slice(start, position)) ? position : -2;
}

/** The pointer through the first `frameCount` open containers to their current children. */
function pathTo(kinds: readonly number[], counts: readonly number[], currentKeys: readonly string[], frameCount: number): string {
  const segments: (string | number)[] = [];
  for (let index = 0; index < frameCount && index < 16; index++) {
    segments.push(kinds[index] === ARRAY ? (counts[index] ?? 1) - 1 : (currentKeys[index] ?? ''));
  }
  return contractSafePointer(segments);
}

/**
 * Scans `text` as one JSON document under `limits` (resolved like every entry point's: see
 * `resolveJsonLimits`) without building any value: its UTF-8 length first (`max_bytes`), then one
 * pass over it. Returns the first violation, or `null` when `JSON.parse(text)` will succeed and
 * yield a value within the limits, free of duplicate and forbidden keys and of lone surrogates,
 * whose every number reads back as the decimal written: the shortest form of the double it parses
 * to (what `JSON.stringify` and RFC 8785 write) has the same significant digits and exponent
 * (anything else is `non_json_value`; see the README's Numbers section for what that accepts and
 * refuses). Anything but a string (bytes included: `parseUntrustedJson` decodes them) is
 * `malformed_json` at the root, as `parseUntrustedJson` answers input that is neither text nor
 * bytes. Never throws on any input; invalid limits throw a `TypeError` naming the limit.
 */
export function scanJsonText(text: string, limits?: Partial<JsonLimits>): GuardViolation | null {
  const resolved = resolveLimitsForCall(limits);
  if (typeof text !== 'string') return { rule: 'malformed_json', path: '' };
  if (!utf8LengthWithin(text, resolved.maxBytes)) return { rule: 'max_bytes', path: '' };
  return scanJsonTextWithin(text, resolved);
}

/**
 * `scanJsonText` after its checks, for `parseUntrustedJson`, which has resolved the limits and
 * measured the input already: `text` a string, `limits` resolved (not exported by the package).
 */
export function scanJsonTextWithin(text: string, limits: Readonly<JsonLimits>): GuardViolation | null {
  const { maxDepth, maxArrayItems, maxObjectKeys, maxStringLength, maxTotalNodes } = limits;
  const length = text.length;

  // Per open container, by depth (index depth - 1): its kind, how many items or keys it has
  // started, and for objects the current key (for the violation path) and the keys seen so far.
  const kinds: number[] = [];
  const counts: number[] = [];
  const currentKeys: string[] = [];
  const keyLists: string[][] = [];
  const keySets: (Set<string> | undefined)[] = [];
  const scan: StringScan = { end: 0, decoded: '' };

  let depth = 0;
  let nodes = 0;
  let position = 0;
  let expect = EXPECT_VALUE;

  const atValue = (rule: string): GuardViolation => ({ rule, path: pathTo(kinds, counts, currentKeys, depth) });
  const atContainer = (rule: string): GuardViolation => ({ rule, path: pathTo(kinds, counts, currentKeys, depth - 1) });

  if (text.charCodeAt(0) === 0xfeff) return { rule: 'byte_order_mark', path: '' };

  for (;;) {
    let code = text.charCodeAt(position);
    while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) code = text.charCodeAt(++position);
    if (position >= length) {
      return expect === EXPECT_SEPARATOR && depth === 0 ? null : atValue('malformed_json');
    }

    switch (expect) {
      case EXPECT_VALUE_OR_CLOSE:
      case EXPECT_VALUE: {
        if (expect === EXPECT_VALUE_OR_CLOSE && code === 0x5d) {
          depth--;
          position++;
          expect = EXPECT_SEPARATOR;
          break;
        }
        if (depth > 0 && kinds[depth - 1] === ARRAY) {
          const items = (counts[depth - 1] ?? 0) + 1;
          counts[depth - 1] = items;
          if (items > maxArrayItems) return atContainer('max_array_items');
        }
        if (++nodes > maxTotalNodes) return atValue('max_total_nodes');
        if (code === 0x7b || code === 0x5b) {
          if (depth >= maxDepth) return atValue('max_depth');
          const isObject = code === 0x7b;
          kinds[depth] = isObject ? OBJECT : ARRAY;
          counts[depth] = 0;
          if (isObject) {
            const list = keyLists[depth];
            if (list === undefined) keyLists[depth] = [];
            else list.length = 0;
            keySets[depth]?.clear();
          }
          depth++;
          position++;
          expect = isObject ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
          break;
        }
        if (code === CODE_QUOTE) {
          const end = scanString(text, position, maxStringLength, false, scan);
          if (end < 0) {
            return atValue(
              end === STRING_LONE_SURROGATE ? 'lone_surrogate' : end === STRING_TOO_LONG ? 'max_string_length' : 'malformed_json',
            );
          }
          position = end;
        } else if (code === 0x2d || isDigit(code)) {
          const end = scanNumber(text, position);
          if (end < 0) return atValue(end === -2 ? 'non_json_value' : 'malformed_json');
          position = end;
        } else if (code === 0x74 && text.startsWith('true', position)) {
          position += 4;
        } else if (code === 0x66 && text.startsWith('false', position)) {
          position += 5;
        } else if (code === 0x6e && text.startsWith('null', position)) {
          position += 4;
        } else {
          return atValue('malformed_json');
        }
        expect = EXPECT_SEPARATOR;
        break;
      }

      case EXPECT_SEPARATOR: {
        if (depth === 0) return atValue('malformed_json'); // text after the document
        const kind = kinds[depth - 1];
        if (code === 0x2c) {
          expect = kind === ARRAY ? EXPECT_VALUE : EXPECT_KEY;
          position++;
        } else if ((code === 0x5d && kind === ARRAY) || (code === 0x7d && kind === OBJECT)) {
          depth--;
          position++;
        } else {
          return atValue('malformed_json');
        }
        break;
      }

      case EXPECT_KEY_OR_CLOSE:
      case EXPECT_KEY: {
        if (expect === EXPECT_KEY_OR_CLOSE && code === 0x7d) {
          depth--;
          position++;
          expect = EXPECT_SEPARATOR;
          break;
        }
        if (code !== CODE_QUOTE) return atContainer('malformed_json');
        const frame = depth - 1;
        const keyCount = (counts[frame] ?? 0) + 1;
        counts[frame] = keyCount;
        if (keyCount > maxObjectKeys) return atContainer('max_object_keys');
        const end = scanString(text, position, maxStringLength, true, scan);
        if (end < 0) {
          return atContainer(
            end === STRING_LONE_SURROGATE ? 'lone_surrogate' : end === STRING_TOO_LONG ? 'max_string_length' : 'malformed_json',
          );
        }
        const key = scan.decoded;
        if (isForbiddenKey(key)) return atContainer('forbidden_key');
        const list = keyLists[frame] ?? [];
        if (keyCount <= LINEAR_KEY_LIMIT) {
          if (list.includes(key)) return atContainer('duplicate_key');
          list.push(key);
        } else {
          let set = keySets[frame];
          if (set === undefined) {
            set = new Set<string>();
            keySets[frame] = set;
          }
          if (set.size === 0) for (const seen of list) set.add(seen);
          if (set.has(key)) return atContainer('duplicate_key');
          set.add(key);
        }
        currentKeys[frame] = key;
        position = end;
        expect = EXPECT_COLON;
        break;
      }

      default: {
        // EXPECT_COLON
        if (code !== 0x3a) return atContainer('malformed_json');
        position++;
        expect = EXPECT_VALUE;
        break;
      }
    }
  }
}
