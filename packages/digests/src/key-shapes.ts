// Internal to @toolseal/digests (not exported by the package): the member prefixes of canonicalize.

import { LONE_SURROGATE, NO_ROOM, writeJsonString } from './write-json-string.js';

/**
 * What canonicalize needs to write the members of an object with a given key list: the keys in
 * RFC 8785 order and, for a key list seen before, each member's prefix (`{"key":` for the first,
 * `,"key":` for the others) JSON-escaped ahead of time. Without prefixes (`words === null`, a
 * list seen for the first time), canonicalize escapes each key as it writes it.
 *
 * A key with a lone surrogate has no prefix: `writable` counts the sorted keys before the first
 * such key, so the walk fails there, after the members before it, exactly where writing the key
 * itself fails.
 */
export interface Shape {
  /** The key list as `Object.keys` gave it, what the cache compares (`sorted`, when not cached). */
  readonly keys: readonly string[];
  readonly sorted: readonly string[];
  readonly writable: number;
  /** Prefix code units two by two in native byte order, each prefix starting on a new word. */
  readonly words: Int32Array | null;
  /** Prefix `index` is `words[wordStarts[index]]` up to `words[wordStarts[index + 1]]`. */
  readonly wordStarts: readonly number[];
  /** Prefix `index` is `lengths[index]` code units long (its last word may hold one more, zero). */
  readonly lengths: readonly number[];
}

// Objects in an array share their key list, and the same lists come back call after call: a
// cache from key list to Shape skips sorting and escaping the keys of every object (10% more
// throughput on the benchmark's 1 KB list of 7-key items, 18% with the prefixes copied two units
// per store, see writePrefix). Keys compare with `===`, a pointer comparison for the internalized
// strings Object.keys returns. Each set holds the two most recently encoded shapes, so that two
// lists in use together never evict each other for good. A list is encoded the second time its
// keys are seen: when every first sighting was encoded, objects whose key lists never repeat
// (maps keyed by ids) measured 20 times slower. Only property names are kept, never values, and
// only for objects of at most 64 keys.
const SHAPE_SETS = 256;
const MAX_CACHED_KEYS = 64;
const MAX_CACHED_UNITS = 2048;
const shapeCache: (Shape | undefined)[] = new Array<Shape | undefined>(SHAPE_SETS * 2).fill(undefined);
const seenOnce: (readonly string[] | undefined)[] = new Array<readonly string[] | undefined>(SHAPE_SETS).fill(undefined);
const prefixUnits = new Uint16Array(MAX_CACHED_UNITS);
const NO_NUMBERS: readonly number[] = [];

const NATIVE_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const charCodeAt = String.prototype.charCodeAt; // see write-json-string.ts

/**
 * Sorts object keys by UTF-16 code units (RFC 8785 §3.2.3), in place, and returns them. Insertion
 * sort for the small objects that dominate real data (also linear when already sorted), the
 * engine's sort otherwise: both compare strings by code units.
 */
function sortKeys(keys: string[]): string[] {
  const count = keys.length;
  if (count > 16) {
    for (let index = 1; index < count; index++) {
      if ((keys[index - 1] as string) > (keys[index] as string)) return keys.sort();
    }
    return keys;
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
  return keys;
}

/** The cache set of a key list (not empty): from its length and its first and last keys. */
function shapeSet(keys: readonly string[]): number {
  const count = keys.length;
  const first = keys[0] as string;
  const last = keys[count - 1] as string;
  const hash =
    Math.imul(count, 0x9e3779b1) ^
    Math.imul(first.length, 0x85ebca6b) ^
    Math.imul(last.length, 0xc2b2ae35) ^
    Math.imul(first.length === 0 ? 0 : charCodeAt.call(first, 0), 0x27d4eb2f) ^
    Math.imul(last.length === 0 ? 0 : charCodeAt.call(last, last.length - 1), 0x165667b1);
  return (hash ^ (hash >>> 16)) & (SHAPE_SETS - 1);
}

function sameKeys(cached: readonly string[], keys: readonly string[]): boolean {
  const count = keys.length;
  if (cached.length !== count) return false;
  for (let index = 0; index < count; index++) {
    if (cached[index] !== keys[index]) return false;
  }
  return true;
}

function unencodedShape(sorted: readonly string[]): Shape {
  return { keys: sorted, sorted, writable: sorted.length, words: null, wordStarts: NO_NUMBERS, lengths: NO_NUMBERS };
}

/** Whether `sorted` holds `key`, looking from `start` on first (lists are often in order). */
function holds(sorted: readonly string[], key: string, start: number): boolean {
  for (let index = start; index < sorted.length; index++) if (sorted[index] === key) return true;
  for (let index = 0; index < start; index++) if (sorted[index] === key) return true;
  return false;
}

/** Whether `keys` holds the same keys as `sorted`, in any order (property names are distinct). */
function samePropertyNames(keys: readonly string[], sorted: readonly string[]): boolean {
  const count = keys.length;
  if (sorted.length !== count) return false;
  for (let index = 0; index < count; index++) if (!holds(sorted, keys[index] as string, index)) return false;
  return true;
}

/** At most 6 units per key unit (write-json-string.test.ts), quotes, separator, colon, padding. */
function worstCaseUnits(keys: readonly string[]): number {
  let units = 0;
  for (let index = 0; index < keys.length; index++) units += (keys[index] as string).length * 6 + 6;
  return units;
}

function encodedShape(keys: readonly string[], sorted: readonly string[]): Shape {
  const units = prefixUnits;
  const wordStarts = [0];
  const lengths: number[] = [];
  let at = 0;
  let writable = 0;
  for (; writable < sorted.length; writable++) {
    units[at] = writable === 0 ? 0x7b : 0x2c;
    const written = writeJsonString(units, at + 1, sorted[writable] as string);
    if (written === LONE_SURROGATE) break;
    if (written === NO_ROOM) throw new RangeError('canonicalize: no room for a key prefix'); // see worstCaseUnits
    units[written] = 0x3a;
    lengths.push(written + 1 - at);
    at = (written + 2) & ~1; // the next prefix starts on a word
    if (at !== written + 1) units[written + 1] = 0; // padding
    wordStarts.push(at >> 1);
  }
  const words = new Int32Array(units.buffer, 0, at >> 1).slice();
  return { keys, sorted, writable, words, wordStarts, lengths };
}

/**
 * The Shape of an object's key list (`Object.keys` of it, not empty; sorted in place when it has
 * not been seen before): cached; encoded now if the same keys were seen once before; else
 * without prefixes. Sorting in place on a first sighting, as canonicalize always did, keeps the
 * key lists that never repeat (maps keyed by ids) from paying for a copy.
 */
export function shapeOf(keys: string[]): Shape {
  if (keys.length > MAX_CACHED_KEYS) return unencodedShape(sortKeys(keys));
  const set = shapeSet(keys);
  const recent = shapeCache[set * 2];
  if (recent !== undefined && sameKeys(recent.keys, keys)) return recent;
  const older = shapeCache[set * 2 + 1];
  if (older !== undefined && sameKeys(older.keys, keys)) return older;
  return uncachedShape(keys, set);
}

/** shapeOf for a key list not in the cache: kept apart so that canonicalize inlines only the lookup. */
function uncachedShape(keys: string[], set: number): Shape {
  const seen = seenOnce[set];
  if (seen === undefined || !samePropertyNames(keys, seen) || worstCaseUnits(seen) > MAX_CACHED_UNITS) {
    seenOnce[set] = sortKeys(keys);
    return unencodedShape(keys);
  }
  seenOnce[set] = undefined;
  const shape = encodedShape(keys, seen);
  shapeCache[set * 2 + 1] = shapeCache[set * 2];
  shapeCache[set * 2] = shape;
  return shape;
}

/**
 * Writes the prefix of sorted member `index` (`words` not null, `index < writable`) at `position`
 * in code units of the buffer `output` views, with room for `shape.lengths[index] + 1` units.
 * Returns the position after the prefix. Two code units per store: a loop over the Uint16Array
 * measured twice the time per unit, and the keys were about a third of the benchmark output.
 */
export function writePrefix(output: DataView, position: number, shape: Shape, index: number): number {
  const words = shape.words as Int32Array;
  const end = shape.wordStarts[index + 1] as number;
  let byte = position * 2;
  for (let word = shape.wordStarts[index] as number; word < end; word++) {
    output.setInt32(byte, words[word] as number, NATIVE_LITTLE_ENDIAN);
    byte += 4;
  }
  return position + (shape.lengths[index] as number);
}
