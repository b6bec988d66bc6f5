// Internal to @toolseal/guard: the work budget of one validation, which `compileSchema` gives every
// validator of a schema that has a `$ref`.
import { _ } from 'ajv/dist/2020.js';
import type { CodeKeywordDefinition, KeywordCxt } from 'ajv/dist/2020.js';
import { SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from './subschemas.js';

/** Work units any validation may spend, however small the value. */
export const VALIDATION_WORK_BASE = 65_536;
/** Work units a validation may spend per unit of the schema's size (`instrumentSchema`) and of the value's. */
export const VALIDATION_WORK_FACTOR = 4;
/** Size units counted at most (a value of 1 MiB has about a million): a larger value gets the budget of this size. */
const MAX_COUNTED_SIZE = 1 << 26;

/**
 * Thrown by a validator `compileSchema` made when the value costs more work than its budget:
 * `VALIDATION_WORK_BASE`, plus `VALIDATION_WORK_FACTOR` times the schema's size (its subschemas and
 * the size of their `enum` and `const` values) times the value's size. Each time a subschema is
 * applied to a value it costs that value's own size (1, plus its length for a string or an array,
 * plus 1 and the length of each key for an object) and the size of the subschema's `enum` and
 * `const` values. A validation in which no subschema is applied twice to the same place costs at
 * most the schema's size times the value's, so only a
 * schema that applies subschemas to the same values again and again, multiplying the work with each
 * level of nesting (a `oneOf` of objects whose recursive member the validator checks before the
 * member that tells the branches apart; definitions that apply the next one twice), reaches the
 * budget. Like `PatternBudgetExceeded`, it is no answer about the value, neither valid nor invalid:
 * every toolseal caller treats it as a validator that throws (a tool call or proposal is held).
 */
export class ValidationBudgetExceeded extends RangeError {
  /** The work units the validation was allowed. */
  readonly budget: number;

  constructor(budget: number) {
    super(
      `validation needs more than ${budget} work units (${VALIDATION_WORK_BASE}, and ${VALIDATION_WORK_FACTOR} per unit of the schema's size times the value's): the schema applies subschemas to the same values again and again; in each "oneOf"/"anyOf" branch, list the property that tells the branches apart ("const") before the recursive one`,
    );
    this.name = 'ValidationBudgetExceeded';
    this.budget = budget;
  }
}

/**
 * A value's own size: 1, plus its length for a string or an array, plus, for an object, 1 and the
 * length of each key (`propertyNames` applies a subschema to every key, and matching keys against
 * `properties` reads them).
 */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return 1 + value.length;
  if (typeof value !== 'object' || value === null) return 1;
  if (Array.isArray(value)) return 1 + value.length;
  let size = 1;
  for (const key in value) if (Object.hasOwn(value, key)) size += 1 + key.length;
  return size;
}

// The validation running now: what is left of its budget (unbounded outside one, as for a
// validator of `createPinnedAjv` that `compileSchema` did not wrap).
let workLeft = Number.POSITIVE_INFINITY;
let workBudget = Number.POSITIVE_INFINITY;

/**
 * Called by the generated code each time a subschema is applied to `data`, before anything else of
 * it: the value's own size, and `fixed`, the size of the subschema's `enum` and `const` values
 * (comparing the value with each of them costs up to that).
 */
function spendWork(data: unknown, fixed: number): void {
  workLeft -= sizeOf(data) + fixed;
  if (workLeft < 0) throw new ValidationBudgetExceeded(workBudget);
}

/** The size of `data`: the own sizes of it and every value in it, counted up to `MAX_COUNTED_SIZE`; iterative. */
export function sizeOfAll(data: unknown): number {
  let size = 0;
  const pending: unknown[] = [data];
  while (pending.length > 0 && size < MAX_COUNTED_SIZE) {
    const value = pending.pop();
    size += sizeOf(value);
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length && pending.length < MAX_COUNTED_SIZE; index++) pending.push(value[index]);
    } else {
      for (const key of Object.keys(value)) {
        if (pending.length >= MAX_COUNTED_SIZE) break;
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return Math.min(size, MAX_COUNTED_SIZE);
}

/** The budget state to restore when a validation ends (`beginWorkScope`). */
export interface WorkScope {
  readonly left: number;
  readonly budget: number;
}

/**
 * Gives the validation of `data` starting now, against a schema of size `schemaSize`
 * (`instrumentSchema`), its own budget; returns the one to restore after it (`endWorkScope`). Reads every value of `data` once;
 * when that throws (a getter), the state is as it was and the error passes through.
 */
export function beginWorkScope(data: unknown, schemaSize: number): WorkScope {
  const outer = { left: workLeft, budget: workBudget };
  let size: number;
  try {
    size = sizeOfAll(data);
  } catch (error) {
    // A getter or Proxy trap of `data` threw: the state is the caller's again, and so is the error.
    endWorkScope(outer);
    throw error;
  }
  workBudget = VALIDATION_WORK_BASE + VALIDATION_WORK_FACTOR * schemaSize * size;
  workLeft = workBudget;
  return outer;
}

/** Ends the validation `beginWorkScope` began. */
export function endWorkScope(outer: WorkScope): void {
  workLeft = outer.left;
  workBudget = outer.budget;
}

/** The keyword `instrumentSchema` adds to every subschema: spends the work of applying it (`spendWork`). */
export const WORK_KEYWORD = 'x-toolseal-work';

/**
 * Runs first in its subschema (before `$ref`, the first keyword Ajv applies to any type). Its value
 * is the subschema's fixed cost (`spendWork`): a number, so that no `$ref` can resolve to it as a
 * schema.
 */
export const WORK_KEYWORD_DEFINITION: CodeKeywordDefinition = {
  keyword: WORK_KEYWORD,
  schemaType: 'number',
  before: '$ref',
  code(cxt: KeywordCxt): void {
    const spend = cxt.gen.scopeValue('func', { ref: spendWork });
    cxt.gen.code(_`${spend}(${cxt.data}, ${cxt.schema as number})`);
  },
};

/** The size of the `enum` and `const` values of `node` (`sizeOfAll` of each), 0 without them. */
function fixedCostOf(node: Record<string, unknown>): number {
  return (Object.hasOwn(node, 'enum') ? sizeOfAll(node.enum) : 0) + (Object.hasOwn(node, 'const') ? sizeOfAll(node.const) : 0);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of `schema` with `WORK_KEYWORD` in every subschema that is an object (the keywords of
 * `subschemasOf`), and the schema's size: the number of those subschemas plus the size of their
 * `enum` and `const` values. A validation that applies no subschema twice to the same place spends
 * at most that size times the value's. The copy keeps every other member as it is (`const`, `enum`,
 * property names, `$id`s and `$ref`s alike), and shares what the original shares. Iterative.
 */
export function instrumentSchema(schema: Record<string, unknown>): { readonly schema: Record<string, unknown>; readonly size: number } {
  const copies = new Map<object, Record<string, unknown>>();
  let size = 0;
  const pending: Record<string, unknown>[] = [];
  const copyOf = (node: unknown): unknown => {
    if (!isRecord(node)) return node;
    const known = copies.get(node);
    if (known !== undefined) return known;
    // Own members as data properties: a property named `__proto__` stays one.
    const copy: Record<string, unknown> = { ...node };
    const fixed = fixedCostOf(node);
    size += 1 + fixed;
    Object.defineProperty(copy, WORK_KEYWORD, { value: fixed, enumerable: true, writable: true, configurable: true });
    copies.set(node, copy);
    pending.push(copy);
    return copy;
  };
  const root = copyOf(schema) as Record<string, unknown>;
  for (let copy = pending.pop(); copy !== undefined; copy = pending.pop()) {
    for (const keyword of SUBSCHEMA_KEYWORDS) if (Object.hasOwn(copy, keyword)) copy[keyword] = copyOf(copy[keyword]);
    for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
      const list = copy[keyword];
      if (Object.hasOwn(copy, keyword) && Array.isArray(list)) copy[keyword] = list.map(copyOf);
    }
    for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
      const map = copy[keyword];
      if (!Object.hasOwn(copy, keyword) || !isRecord(map)) continue;
      // Names as data properties (`Object.fromEntries`), a `__proto__` among them included; a list
      // of names of `dependencies` stays as it is.
      copy[keyword] = Object.fromEntries(Object.entries(map).map(([name, value]) => [name, Array.isArray(value) ? value : copyOf(value)]));
    }
  }
  return { schema: root, size };
}
