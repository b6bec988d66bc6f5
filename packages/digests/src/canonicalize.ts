import { CanonicalizationError, type CanonicalizationFailureReason } from './canonicalization-error.js';
import { LONE_SURROGATE, NO_ROOM, writeJsonString } from './write-json-string.js';

/** Default for `CanonicalizeOptions.maxDepth`. */
export const DEFAULT_MAX_DEPTH = 1000;

/** Options of `canonicalize`. */
export interface CanonicalizeOptions {
  /**
   * How many containers (objects and arrays, empty ones included) may nest: `[]` has depth 1,
   * `[[]]` depth 2, a scalar depth 0. Deeper values throw `max_depth` (or `cycle`). Any
   * non-negative safe integer: the walk is iterative, so a large limit cannot overflow the stack.
   * Default `DEFAULT_MAX_DEPTH` (1000).
   */
  maxDepth?: number;
}

type JsonArray = readonly unknown[];
type JsonRecord = Record<string, unknown>;

const OBJECT_PROTOTYPE: object = Object.prototype;
const ARRAY_PROTOTYPE: object = Array.prototype;

// Output is built as UTF-16 code units in a typed array and decoded at the end: measured
// faster here than string concatenation (whose rope must be flattened, and whose nodes survive
// scavenges on large values) and than array join. A scratch buffer is reused between calls.
const INITIAL_UNITS = 1 << 12;
const MAX_RETAINED_UNITS = 1 << 21; // keep at most 4 MiB between calls
let scratch: Uint16Array | null = null;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const NodeBuffer: typeof Buffer | undefined =
  typeof globalThis.Buffer === 'function' ? globalThis.Buffer : undefined;
const utf16Decoder = LITTLE_ENDIAN ? new TextDecoder('utf-16le') : undefined;

// Mid-size results are decoded in chunks and returned as a rope, as JSON.stringify returns them:
// one string of 128 KiB to 1 MiB lands in V8's large-object space on every call, which measured
// up to twice as slow here. Larger results decode faster in one piece.
const CHUNK_UNITS = 1 << 14;
const MAX_CHUNKED_UNITS = 1 << 18;

function decodeUnits(buffer: Uint16Array, length: number): string {
  if (NodeBuffer !== undefined && LITTLE_ENDIAN) {
    // Much less per-call overhead than TextDecoder under Node.
    if (length <= CHUNK_UNITS || length > MAX_CHUNKED_UNITS) {
      return NodeBuffer.from(buffer.buffer, buffer.byteOffset, length * 2).toString('utf16le');
    }
    let text = '';
    for (let start = 0; start < length; start += CHUNK_UNITS) {
      const units = Math.min(CHUNK_UNITS, length - start);
      text += NodeBuffer.from(buffer.buffer, buffer.byteOffset + start * 2, units * 2).toString('utf16le');
    }
    return text;
  }
  if (utf16Decoder !== undefined) return utf16Decoder.decode(buffer.subarray(0, length));
  let text = '';
  for (let start = 0; start < length; start += 8192) {
    text += String.fromCharCode(...buffer.subarray(start, Math.min(length, start + 8192)));
  }
  return text;
}

function grow(buffer: Uint16Array, used: number, needed: number): Uint16Array {
  let size = buffer.length * 2;
  while (size < used + needed) size *= 2;
  const larger = new Uint16Array(size);
  larger.set(buffer.subarray(0, used));
  return larger;
}

/** Decimal digits of an integer in [0, 1e9): what `String(number)` gives, without the string. */
function writeSmallInteger(buffer: Uint16Array, position: number, number: number): number {
  if (number < 10) {
    buffer[position] = 0x30 + number;
    return position + 1;
  }
  const digits =
    number < 100 ? 2 : number < 1e3 ? 3 : number < 1e4 ? 4 : number < 1e5 ? 5 : number < 1e6 ? 6 : number < 1e7 ? 7 : number < 1e8 ? 8 : 9;
  let rest = number;
  for (let at = position + digits - 1; at >= position; at--) {
    const quotient = (rest / 10) | 0;
    buffer[at] = 0x30 + rest - quotient * 10;
    rest = quotient;
  }
  return position + digits;
}

const charCodeAt = String.prototype.charCodeAt; // see write-json-string.ts

function writeAscii(buffer: Uint16Array, position: number, text: string): number {
  let at = position;
  const length = text.length;
  for (let index = 0; index < length; index++) buffer[at++] = charCodeAt.call(text, index);
  return at;
}

/**
 * Sorts object keys by UTF-16 code units (RFC 8785 §3.2.3), in place. Insertion sort for the
 * small objects that dominate real data (also linear when already sorted), the engine's sort
 * otherwise: both compare strings by code units.
 */
function sortKeys(keys: string[]): void {
  const count = keys.length;
  if (count > 16) {
    for (let index = 1; index < count; index++) {
      if ((keys[index - 1] as string) > (keys[index] as string)) {
        keys.sort();
        return;
      }
    }
    return;
  }
  for (let index = 1; index < count; index++) {
    const key = keys[index] as string;
    let before = index - 1;
    if (!((keys[before] as string) > key)) continue;
    do {
      keys[before + 1] = keys[before] as string;
      before--;
    } while (before >= 0 && (keys[before] as string) > key);
    keys[before + 1] = key;
  }
}

function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** JSON Pointer to the child being visited at each of the first `levels` stack levels. */
function pointerTo(keyLists: readonly (string[] | null)[], positions: readonly number[], levels: number): string {
  let pointer = '';
  for (let level = 0; level < levels; level++) {
    const keys = keyLists[level];
    const position = positions[level] as number;
    pointer += '/' + (keys === null || keys === undefined ? String(position) : escapePointerSegment(keys[position] as string));
  }
  return pointer;
}

/** At the depth limit: a cycle if some container repeats on the current path, else `max_depth`. */
function depthFailure(
  containers: readonly unknown[],
  keyLists: readonly (string[] | null)[],
  positions: readonly number[],
  depth: number,
  entering: object,
): CanonicalizationError {
  const seen = new Set<unknown>();
  for (let level = 0; level <= depth; level++) {
    const container = level < depth ? containers[level] : entering;
    if (seen.has(container)) return new CanonicalizationError('cycle', pointerTo(keyLists, positions, level));
    seen.add(container);
  }
  return new CanonicalizationError('max_depth', pointerTo(keyLists, positions, depth));
}

function failAt(
  reason: CanonicalizationFailureReason,
  keyLists: readonly (string[] | null)[],
  positions: readonly number[],
  levels: number,
): CanonicalizationError {
  return new CanonicalizationError(reason, pointerTo(keyLists, positions, levels));
}

function readMaxDepth(options: CanonicalizeOptions | undefined): number {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new RangeError('canonicalize: maxDepth must be a non-negative safe integer');
  }
  return maxDepth;
}

/**
 * The RFC 8785 (JSON Canonicalization Scheme) text of `value`: object keys sorted by UTF-16 code
 * units, no whitespace, numbers as ECMAScript `Number.prototype.toString` writes them (`-0` as
 * `0`), strings with the minimal `JSON.stringify` escaping.
 *
 * Only plain JSON data is accepted: plain objects (prototype `Object.prototype` or `null`), plain
 * arrays without holes, strings without lone surrogates, finite numbers, booleans and `null`.
 * Anything else throws `CanonicalizationError` with a finite `reason` and a JSON Pointer `path`:
 * digests must never be computed over a value that `JSON.parse` could not have produced.
 * `toJSON` methods are not called. Accessor properties are read once, like data properties
 * (detecting them would cost a descriptor lookup per key); array properties that are not
 * indexes are ignored, as `JSON.stringify` ignores them.
 *
 * The walk is iterative: nesting is bounded by `maxDepth`, never by the call stack.
 */
export function canonicalize(value: unknown, options?: CanonicalizeOptions): string {
  const maxDepth = readMaxDepth(options);
  // One frame per open container: the container, its sorted keys (null for arrays), and the
  // index of the child being written.
  const containers: unknown[] = [];
  const keyLists: (string[] | null)[] = [];
  const positions: number[] = [];
  let depth = 0;
  let current: unknown = value;

  let buffer = scratch ?? new Uint16Array(INITIAL_UNITS);
  scratch = null; // a getter that calls canonicalize again gets a buffer of its own
  let at = 0;

  for (;;) {
    // Room for any number, literal or pair of brackets.
    if (buffer.length - at < 64) buffer = grow(buffer, at, 64);
    switch (typeof current) {
      case 'string': {
        const text = current;
        if (buffer.length - at < text.length + 3) buffer = grow(buffer, at, text.length + 3);
        let written = writeJsonString(buffer, at, text);
        while (written === NO_ROOM) {
          buffer = grow(buffer, at, buffer.length - at + text.length + 8);
          written = writeJsonString(buffer, at, text);
        }
        if (written === LONE_SURROGATE) throw failAt('lone_surrogate', keyLists, positions, depth);
        at = written;
        break;
      }
      case 'number':
        if (!Number.isFinite(current)) throw failAt('non_finite_number', keyLists, positions, depth);
        // ECMAScript Number::toString, exactly what RFC 8785 §3.2.2.3 prescribes; -0 gives "0".
        // Small non-negative integers (counts, ids, minor units) skip the temporary string.
        at =
          current >= 0 && current < 1e9 && (current | 0) === current
            ? writeSmallInteger(buffer, at, current)
            : writeAscii(buffer, at, String(current));
        break;
      case 'boolean':
        at = writeAscii(buffer, at, current ? 'true' : 'false');
        break;
      case 'object': {
        if (current === null) {
          at = writeAscii(buffer, at, 'null');
          break;
        }
        const prototype: unknown = Object.getPrototypeOf(current);
        if (prototype === ARRAY_PROTOTYPE && Array.isArray(current)) {
          if (depth >= maxDepth) throw depthFailure(containers, keyLists, positions, depth, current);
          const array: JsonArray = current;
          if (array.length === 0) {
            buffer[at++] = 0x5b;
            buffer[at++] = 0x5d;
            break;
          }
          containers[depth] = array;
          keyLists[depth] = null;
          positions[depth] = 0;
          depth++;
          buffer[at++] = 0x5b;
          current = array[0];
          continue;
        }
        if (prototype !== OBJECT_PROTOTYPE && prototype !== null) {
          throw failAt('unsupported_type', keyLists, positions, depth);
        }
        if (depth >= maxDepth) throw depthFailure(containers, keyLists, positions, depth, current);
        const record = current as JsonRecord;
        const keys = Object.keys(record);
        // Symbol-keyed and non-enumerable properties are invisible to Object.keys: reject them
        // rather than digest a value that differs from what the caller holds. Two calls, not one
        // `Reflect.ownKeys(record).length !== keys.length`: under Node 20 that one call measured
        // three times the cost of both (about 170 ns against 50 ns for a 7-key object).
        if (Object.getOwnPropertySymbols(record).length !== 0 || Object.getOwnPropertyNames(record).length !== keys.length) {
          throw failAt('unsupported_type', keyLists, positions, depth);
        }
        if (keys.length === 0) {
          buffer[at++] = 0x7b;
          buffer[at++] = 0x7d;
          break;
        }
        if (keys.length > 1) sortKeys(keys);
        containers[depth] = record;
        keyLists[depth] = keys;
        positions[depth] = 0;
        depth++;
        const key = keys[0] as string;
        if (buffer.length - at < key.length + 4) buffer = grow(buffer, at, key.length + 4);
        buffer[at++] = 0x7b;
        let written = writeJsonString(buffer, at, key);
        while (written === NO_ROOM) {
          buffer = grow(buffer, at, buffer.length - at + key.length + 8);
          written = writeJsonString(buffer, at, key);
        }
        if (written === LONE_SURROGATE) throw failAt('lone_surrogate', keyLists, positions, depth - 1);
        at = written;
        buffer[at++] = 0x3a;
        current = record[key];
        continue;
      }
      default:
        // undefined (also array holes), bigint, symbol, function.
        throw failAt('unsupported_type', keyLists, positions, depth);
    }

    // A value is complete: move to the next sibling, closing finished containers on the way up.
    for (;;) {
      if (depth === 0) {
        const text = decodeUnits(buffer, at);
        if (buffer.length <= MAX_RETAINED_UNITS) {
          // The retained buffer must not keep a copy of the last value (arguments, results).
          buffer.fill(0, 0, at);
          scratch = buffer;
        }
        return text;
      }
      const top = depth - 1;
      const next = (positions[top] as number) + 1;
      const keys = keyLists[top] as string[] | null;
      if (buffer.length - at < 2) buffer = grow(buffer, at, 2);
      if (keys === null) {
        const array = containers[top] as JsonArray;
        if (next < array.length) {
          positions[top] = next;
          buffer[at++] = 0x2c;
          current = array[next];
          break;
        }
        buffer[at++] = 0x5d;
      } else if (next < keys.length) {
        positions[top] = next;
        const key = keys[next] as string;
        if (buffer.length - at < key.length + 4) buffer = grow(buffer, at, key.length + 4);
        buffer[at++] = 0x2c;
        let written = writeJsonString(buffer, at, key);
        while (written === NO_ROOM) {
          buffer = grow(buffer, at, buffer.length - at + key.length + 8);
          written = writeJsonString(buffer, at, key);
        }
        if (written === LONE_SURROGATE) throw failAt('lone_surrogate', keyLists, positions, top);
        at = written;
        buffer[at++] = 0x3a;
        current = (containers[top] as JsonRecord)[key];
        break;
      } else {
        buffer[at++] = 0x7d;
      }
      containers[top] = undefined;
      depth = top;
    }
  }
}
