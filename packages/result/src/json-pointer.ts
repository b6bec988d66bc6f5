import type { JsonValue } from '@toolseal/contracts';

/** A JSON Pointer split into segments; `*` in a template matches every index of an array. */
export function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/');
}

/** A simple pointer: empty, or `/name` segments of `[A-Za-z0-9_]{1,64}` or indexes. */
export const SIMPLE_POINTER = /^(?:\/(?:[A-Za-z0-9_]{1,64}))*$/;

function ownValue(value: JsonValue, segment: string): JsonValue | undefined {
  if (Array.isArray(value)) {
    if (!/^(?:0|[1-9][0-9]{0,5})$/.test(segment)) return undefined;
    return value[Number(segment)];
  }
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, segment)) return value[segment];
  return undefined;
}

/** The value at a simple pointer split by `pointerSegments`, or `undefined` when absent. Own properties only. */
export function valueAtSegments(root: JsonValue, segments: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = root;
  for (const segment of segments) {
    if (current === undefined) return undefined;
    current = ownValue(current, segment);
  }
  return current;
}

/**
 * Every present value matched by a template pointer (`*` = each array index), with its concrete
 * pointer. Own properties only.
 */
export function valuesAtTemplate(root: JsonValue, template: string): { pointer: string; value: JsonValue }[] {
  let frontier: { pointer: string; value: JsonValue }[] = [{ pointer: '', value: root }];
  for (const segment of pointerSegments(template)) {
    const next: { pointer: string; value: JsonValue }[] = [];
    for (const { pointer, value } of frontier) {
      if (segment === '*') {
        if (!Array.isArray(value)) continue;
        value.forEach((item, index) => next.push({ pointer: `${pointer}/${index}`, value: item }));
      } else {
        const child = ownValue(value, segment);
        if (child !== undefined) next.push({ pointer: `${pointer}/${segment}`, value: child });
      }
    }
    frontier = next;
  }
  return frontier;
}

/** Structural equality of two JSON values (object key order ignored). */
export function jsonEqual(left: JsonValue, right: JsonValue): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => jsonEqual(item, right[index] as JsonValue));
  }
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key] as JsonValue, right[key] as JsonValue));
}
