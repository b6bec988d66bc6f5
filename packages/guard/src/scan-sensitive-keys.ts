import {
  DEFAULT_SENSITIVE_KEYS,
  SENSITIVE_KEY_PREFIXES,
  SENSITIVE_KEY_SUFFIXES,
  isInvisibleKeyName,
  isLiftableKeyName,
  normalizeKeyName,
  qualifiedCredentialMatch,
} from './sensitive-keys.js';
import { refuseUnknownNames } from './refuse-unknown-names.js';

/** One key the scanner flagged. */
export interface SensitiveKeyHit {
  /**
   * RFC 6901 JSON Pointer of the flagged property. It contains the raw keys of the scanned value
   * (attacker-chosen in a tool output): keep it in protected records, never show it to the model.
   */
  path: string;
  /**
   * JSON Pointer of the object holding the key: `path` without its last segment, one string shared
   * by every hit of that object (a reader that only needs where, not which key, reads this one).
   */
  parent: string;
  /** The key exactly as it appears in the value. */
  key: string;
  /**
   * What it matched: a normalized listed name (`apikey`), a suffix rule (`*token`), a prefix rule
   * (`password*`), `non_ascii_key` for a key that is still not ASCII after NFKC or holds a TAG
   * character, or `invisible_key` for a key with no visible name (zero-width characters only).
   */
  matched: string;
}

/**
 * Host settings for the scanner. Any other member throws a `TypeError` naming it (`extraKey`,
 * `extra_keys`): a misspelt `extraKeys` would otherwise scan without the names meant for it.
 */
export interface SensitiveKeyScanOptions {
  /** Further names to flag, in any spelling (they are normalized like the defaults). An array of strings. */
  extraKeys?: readonly string[];
  /**
   * Names the host's contracts legitimately use (say `subject` for an e-mail tool), in any spelling;
   * compared on the normalized form, exactly. Allowing a name weakens the scan: prefer renaming the
   * field. A name a credential or control rule flags, one still not ASCII after normalization
   * (`non_ascii_key`: `tоken` with a Cyrillic `о`, `prénom`) or one with no visible name
   * (`invisible_key`), can never be lifted
   * (`isLiftableKeyName`): such an entry throws a `TypeError` when the scanner is built, as do a
   * list that is not an array (a string would otherwise be read character by character) and an
   * entry that is not a string. One only a business-ambiguous suffix rule flags (`csrf_cookie`,
   * `owner_tenant_id`) can be lifted, at the host's word.
   */
  allowKeys?: readonly string[];
}

/**
 * Scans a value for sensitive keys; see `scanSensitiveKeys`. `maxHits` (an integer from 1 to
 * `MAX_SENSITIVE_KEY_HITS`, the default) stops the scan after that many hits, for a caller that
 * reports no more than that (a `RangeError` otherwise).
 */
export type SensitiveKeyScanner = (value: unknown, maxHits?: number) => SensitiveKeyHit[];

interface Frame {
  readonly value: object;
  readonly parent: Frame | null;
  /** The raw key or index: escaped only when a hit needs its pointer. */
  readonly segment: string;
  /**
   * The container's JSON Pointer, built on the first hit beneath it and kept: every hit below
   * shares it, so a hit costs its own key, never its ancestors' keys again.
   */
  pointer: string | null;
}

/**
 * Most hits one scan reports, the first in document order. Enough to refuse a value and to show
 * where; a value with more is reported through its first ones. Without a bound, the paths of many
 * hits under long ancestor keys (64K-unit keys, a few levels deep, thousands of hits: an 844 KiB
 * value the default limits accept) added up to gigabytes.
 */
export const MAX_SENSITIVE_KEY_HITS = 256;

const NO_NAMES: readonly string[] = Object.freeze([]);
/** The members of `SensitiveKeyScanOptions`: an options object with any other is refused. */
const SCAN_OPTION_NAMES: readonly string[] = Object.freeze(['extraKeys', 'allowKeys']);
const SCAN_OPTIONS = 'sensitive-key scanner options';
const CACHE_LIMIT = 4_096;
const VISITED_LIST_LIMIT = 32;

function escapePointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The pointer of `frame`'s container: from the nearest ancestor that has one, iteratively. */
function framePointer(frame: Frame): string {
  const pending: Frame[] = [];
  let current: Frame | null = frame;
  while (current !== null && current.pointer === null) {
    pending.push(current);
    current = current.parent;
  }
  // The root frame is made with pointer '' and is never pending.
  let pointer = current === null ? '' : (current.pointer as string);
  for (let index = pending.length - 1; index >= 0; index--) {
    const pendingFrame = pending[index] as Frame;
    pointer = `${pointer}/${escapePointerSegment(pendingFrame.segment)}`;
    pendingFrame.pointer = pointer;
  }
  return pointer;
}


function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/**
 * The names of `extraKeys` or `allowKeys`, copied: a list given as a string would be iterated per
 * character (`'password'` lifting `p`, `a`, `s`...), and an entry that is not a string has no name.
 */
function namesOf(options: SensitiveKeyScanOptions, option: 'extraKeys' | 'allowKeys'): readonly string[] {
  const list: unknown = options[option];
  if (list === undefined) return NO_NAMES;
  if (!Array.isArray(list)) {
    throw new TypeError(`${option} must be an array of strings, got ${kindOf(list)}${typeof list === 'string' ? ` (write [${JSON.stringify(list)}])` : ''}`);
  }
  const names: string[] = [];
  for (let index = 0; index < list.length; index++) {
    const name: unknown = list[index];
    if (typeof name !== 'string') throw new TypeError(`${option}[${index}] must be a string, got ${kindOf(name)}`);
    names.push(name);
  }
  return names;
}

/**
 * Throws a `TypeError` for scanner options that are not an object (an array included) or that
 * hold a member other than `extraKeys` and `allowKeys`, naming it.
 */
function checkScanOptions(options: unknown): asserts options is SensitiveKeyScanOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${SCAN_OPTIONS} must be an object, got ${kindOf(options)}`);
  }
  refuseUnknownNames(options, SCAN_OPTION_NAMES, SCAN_OPTIONS);
}

/**
 * Builds a scanner with the default list plus `extraKeys`, minus `allowKeys`. Build it once at
 * start-up: the lists are normalized here, and each scanner caches the verdict per distinct key.
 * The options are checked here, once, never again by the scanner it returns: a `TypeError` for
 * options that are not an object, a member other than `extraKeys` and `allowKeys` (a misspelt
 * `extraKey` or `extra_keys` would scan without the names meant for it), a list that is not an
 * array of strings, an `extraKeys` entry with no ASCII name, or an `allowKeys` entry that names a
 * credential or a control field, is not ASCII after normalization or has no visible name
 * (`isLiftableKeyName`).
 */
export function createSensitiveKeyScanner(options: SensitiveKeyScanOptions = {}): SensitiveKeyScanner {
  checkScanOptions(options);
  const extraKeys = namesOf(options, 'extraKeys');
  const allowKeys = namesOf(options, 'allowKeys');
  const exact = new Set<string>();
  for (const name of [...DEFAULT_SENSITIVE_KEYS, ...extraKeys]) {
    const normalized = normalizeKeyName(name);
    if (normalized === null || normalized === '') {
      throw new TypeError(`sensitive key ${JSON.stringify(name)} does not normalize to an ASCII name`);
    }
    exact.add(normalized);
  }
  const allowed = new Set<string>();
  for (const name of allowKeys) {
    const normalized = normalizeKeyName(name);
    if (normalized === null) {
      throw new TypeError(`allowKeys: ${JSON.stringify(name)} is not ASCII after normalization (it may be a look-alike of a listed name) and cannot be lifted`);
    }
    if (isInvisibleKeyName(name, normalized)) {
      throw new TypeError(`allowKeys: ${JSON.stringify(name)} has no visible name (invisible characters only) and cannot be lifted`);
    }
    if (!isLiftableKeyName(name)) {
      throw new TypeError(`allowKeys: ${JSON.stringify(name)} is a credential or control field name and cannot be lifted`);
    }
    allowed.add(normalized);
  }

  const verdicts = new Map<string, string | null>();
  const judge = (key: string): string | null => {
    const cached = verdicts.get(key);
    if (cached !== undefined) return cached;
    let verdict: string | null = null;
    const normalized = normalizeKeyName(key);
    if (normalized === null) verdict = 'non_ascii_key';
    else if (isInvisibleKeyName(key, normalized)) verdict = 'invisible_key';
    else if (!allowed.has(normalized)) {
      if (exact.has(normalized)) verdict = normalized;
      else {
        const suffix = SENSITIVE_KEY_SUFFIXES.find((rule) => normalized.endsWith(rule));
        if (suffix !== undefined) verdict = `*${suffix}`;
        else {
          const prefix = SENSITIVE_KEY_PREFIXES.find((rule) => normalized.startsWith(rule));
          // Last, a numbered or versioned copy of a credential name, or a form of its value
          // (`secret_1`, `token2`, `token_v2`, `token_value`, `credentials_json`).
          verdict = prefix !== undefined ? `${prefix}*` : qualifiedCredentialMatch(normalized);
        }
      }
    }
    if (verdicts.size >= CACHE_LIMIT) verdicts.clear();
    verdicts.set(key, verdict);
    return verdict;
  };

  return (value: unknown, maxHits: number = MAX_SENSITIVE_KEY_HITS): SensitiveKeyHit[] => {
    if (!Number.isInteger(maxHits) || maxHits < 1 || maxHits > MAX_SENSITIVE_KEY_HITS) {
      throw new RangeError(`maxHits must be an integer from 1 to ${MAX_SENSITIVE_KEY_HITS}`);
    }
    const hits: SensitiveKeyHit[] = [];
    if (typeof value !== 'object' || value === null) return hits;
    // Cycles and shared subtrees: each object once. The few containers of a typical value are
    // kept in a list (a set of its own costs more than the whole scan of a small result); past
    // `VISITED_LIST_LIMIT` of them, in a Set.
    const visitedList: object[] = [];
    let visitedSet: Set<object> | null = null;
    const stack: Frame[] = [{ value, parent: null, segment: '', pointer: '' }];
    for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
      const container = frame.value;
      if (visitedSet === null) {
        if (visitedList.includes(container)) continue;
        visitedList.push(container);
        if (visitedList.length > VISITED_LIST_LIMIT) visitedSet = new Set(visitedList);
      } else {
        if (visitedSet.has(container)) continue;
        visitedSet.add(container);
      }
      if (Array.isArray(container)) {
        const items: unknown[] = container;
        for (let index = items.length - 1; index >= 0; index--) {
          const item = items[index];
          if (typeof item === 'object' && item !== null) stack.push({ value: item, parent: frame, segment: String(index), pointer: null });
        }
        continue;
      }
      const keys = Object.keys(container);
      for (const key of keys) {
        const matched = judge(key);
        if (matched !== null) {
          const parent = frame.pointer ?? framePointer(frame);
          hits.push({ path: `${parent}/${escapePointerSegment(key)}`, parent, key, matched });
          if (hits.length === maxHits) return hits;
        }
      }
      // Children pushed last-first, so they are visited in document order.
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string;
        const child: unknown = (container as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) {
          stack.push({ value: child, parent: frame, segment: key, pointer: null });
        }
      }
    }
    return hits;
  };
}

const defaultScanner = createSensitiveKeyScanner();

/**
 * Finds the credential and control-field keys at any depth of `value` (spec 000, "Sensitive fields
 * and untrusted content"), iteratively, visiting each object once. A key matches when its
 * normalized form (see `normalizeKeyName`) equals a listed name (`DEFAULT_SENSITIVE_KEYS` plus
 * `extraKeys`), ends with a `SENSITIVE_KEY_SUFFIXES` entry or starts with a `SENSITIVE_KEY_PREFIXES`
 * entry; a key that is still not ASCII after NFKC or holds a TAG character is always reported
 * (`non_ascii_key`, which no `allowKeys` entry lifts), so a look-alike cannot slip through, and so
 * is a key with no visible name (`invisible_key`: zero-width characters only). Keys only: values
 * are not read as names. Never throws on JSON data; invalid options throw as
 * `createSensitiveKeyScanner` says (an unknown member included, also when neither list is given).
 * Options with a list build a scanner for this one call: a host with lists of its own builds its
 * scanner once with `createSensitiveKeyScanner`. Reports at most
 * `MAX_SENSITIVE_KEY_HITS` hits, the first in document order, and stops scanning there: a result of
 * that length may leave keys unlisted, so refuse such a value rather than redact it by the hits.
 */
export function scanSensitiveKeys(value: unknown, options?: SensitiveKeyScanOptions): SensitiveKeyHit[] {
  if (options === undefined) return defaultScanner(value);
  // Checked before the lists are looked at: `{ extraKey: [...] }` has neither list, and would
  // otherwise take the default scanner below without a word.
  checkScanOptions(options);
  if (options.extraKeys === undefined && options.allowKeys === undefined) return defaultScanner(value);
  return createSensitiveKeyScanner(options)(value);
}
