import type { JsonObject, JsonValue } from '@toolseal/contracts';
import type { OutputViolation } from './output-violation.js';

const SAFE_SEGMENT = /^(?:[A-Za-z0-9_]{1,64}|0|[1-9][0-9]{0,5})$/;
const MAX_POINTER_SEGMENTS = 16;

/**
 * Walks a guard-checked JSON value and reports `rule` wherever `matches` is true of a string, a
 * number or a key, or `matchesContainer` of an object or an array: at the value's pointer under
 * `prefix`, at its object's for a key. The pointer
 * stops growing at the first segment that is not contract-safe (a plain name or index) or past 16
 * segments: a key with any other character is never echoed. A plain-name key the output schema does
 * not declare can be: `checkHandlerOutput` cuts every reported path to the declared places.
 */
export function findInData(
  data: JsonValue,
  prefix: string,
  rule: string,
  matches: (value: string | number, isKey: boolean) => boolean,
  matchesContainer: ((container: JsonObject | readonly JsonValue[]) => boolean) | null = null,
): OutputViolation[] {
  const violations: OutputViolation[] = [];
  walk(data, prefix, 0, true, { rule, matches, matchesContainer, violations });
  return violations;
}

interface Search {
  readonly rule: string;
  readonly matches: (value: string | number, isKey: boolean) => boolean;
  readonly matchesContainer: ((container: JsonObject | readonly JsonValue[]) => boolean) | null;
  readonly violations: OutputViolation[];
}

function walk(value: JsonValue, pointer: string, depth: number, safe: boolean, search: Search): void {
  const { rule, violations } = search;
  if (typeof value === 'string' || typeof value === 'number') {
    if (search.matches(value, false)) violations.push({ rule, path: pointer });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const isArray = Array.isArray(value);
  if (search.matchesContainer !== null && search.matchesContainer(value)) violations.push({ rule, path: pointer });
  const entries: [string, JsonValue][] = isArray ? value.map((item, index) => [String(index), item]) : Object.entries(value);
  for (const [key, child] of entries) {
    if (!isArray && search.matches(key, true)) violations.push({ rule, path: pointer });
    const extend = safe && depth < MAX_POINTER_SEGMENTS && SAFE_SEGMENT.test(key);
    walk(child, extend ? `${pointer}/${key}` : pointer, depth + 1, extend, search);
  }
}
