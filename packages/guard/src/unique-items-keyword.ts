// Internal to @toolseal/guard: `uniqueItems` for the pinned Ajv.
import type { FuncKeywordDefinition } from 'ajv/dist/2020.js';
import ajvEqual from 'ajv/dist/runtime/equal.js';

// CommonJS: under NodeNext its default import is `module.exports`, whose `default` is the function.
type Equal = (a: unknown, b: unknown) => boolean;
const equal: Equal = (ajvEqual as unknown as { default?: Equal }).default ?? (ajvEqual as unknown as Equal);

/**
 * Whether no two items of `items` are equal as JSON Schema compares them: scalars through a `Set`
 * (a string never equals a number; `0` and `-0` are one number), objects and arrays pair by pair
 * with Ajv's own deep equality (`inspectInputSchema` bounds how many such items a contract allows).
 */
function hasUniqueItems(items: readonly unknown[]): boolean {
  const scalars = new Set<unknown>();
  const containers: unknown[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (typeof item === 'object' && item !== null) {
      for (const other of containers) if (equal(item, other)) return false;
      containers.push(item);
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
