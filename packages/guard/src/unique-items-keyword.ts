// Internal to @toolseal/guard: `uniqueItems` for the pinned Ajv.
import type { FuncKeywordDefinition } from 'ajv/dist/2020.js';
import { spendValueWork } from './validation-budget.js';

/** `value` with the keys of every object in it sorted, for `JSON.stringify`: equal JSON values give equal texts. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  // Object.fromEntries defines each name as a data property: a `__proto__` key stays one.
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
}

/**
 * Whether no two items of `items` are equal as JSON Schema compares them: scalars through a `Set`
 * (a string never equals a number; `0` and `-0` are one number), objects and arrays through a
 * `Set` of their JSON texts with sorted keys (`1` and `1.0` are one number there too). One pass,
 * linear in the items' size, which it spends from the validation's work budget (a pairwise
 * comparison of objects applied again and again ran for seconds).
 */
function hasUniqueItems(items: readonly unknown[]): boolean {
  const scalars = new Set<unknown>();
  let texts: Set<string> | null = null;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (typeof item === 'object' && item !== null) {
      const text = JSON.stringify(item, sortedKeys);
      spendValueWork(text.length);
      texts ??= new Set();
      if (texts.has(text)) return false;
      texts.add(text);
    } else {
      if (scalars.has(item)) return false;
      scalars.add(item);
    }
  }
  return true;
}

/**
 * Replaces Ajv's `uniqueItems`, whose fast path for items of scalar types remembers them as the
 * keys of a plain object: the string `"__proto__"` reads the inherited accessor there and is never
 * seen twice, so `["__proto__", "__proto__"]` passed. Refusals carry the keyword only (no item
 * indexes), which is all `ajvErrorsToReasons` reads.
 */
export const UNIQUE_ITEMS_KEYWORD: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  validate: (schema: boolean, data: readonly unknown[]) => !schema || hasUniqueItems(data),
};
