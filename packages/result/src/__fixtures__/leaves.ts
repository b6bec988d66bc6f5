// Test-only: enumerate and mutate the leaves of a JSON document.
import type { JsonValue } from '@toolseal/contracts';

export type LeafPath = readonly (string | number)[];

/** Every leaf (scalar, empty array, empty object) with its path. */
export function leavesOf(value: unknown, path: LeafPath = []): { path: LeafPath; value: JsonValue }[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [{ path, value: [] }];
    return value.flatMap((item, index) => leavesOf(item, [...path, index]));
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [{ path, value: {} }];
    return entries.flatMap(([key, child]) => leavesOf(child, [...path, key]));
  }
  return [{ path, value: value as JsonValue }];
}

/** A different value of a plausible kind for a leaf: the smallest change that must be noticed. */
export function alternativeFor(value: JsonValue): JsonValue {
  if (typeof value === 'string' && /^[0-9a-f]{64}$/.test(value)) return `${value.slice(0, -1)}${value.endsWith('0') ? '1' : '0'}`;
  if (typeof value === 'string') return value.length > 0 ? `${value.slice(0, -1)}${value.endsWith('x') ? 'y' : 'x'}` : 'x';
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  if (value === null) return 'x';
  if (Array.isArray(value)) return ['x'];
  return { x: 'x' };
}

/** A deep copy of `root` with the leaf at `path` replaced. */
export function withLeaf<T>(root: T, path: LeafPath, replacement: JsonValue): T {
  const copy = structuredClone(root);
  if (path.length === 0) return replacement as T;
  let parent = copy as unknown as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<string | number, unknown>;
  parent[path[path.length - 1] as string | number] = replacement;
  return copy;
}

export function pathText(path: LeafPath): string {
  return `/${path.join('/')}`;
}
