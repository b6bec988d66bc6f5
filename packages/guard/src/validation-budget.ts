// Internal to @toolseal/guard: the work budgets of one validation, which `compileSchema` gives every
// validator of a schema that has a `$ref`.
import { _ } from 'ajv/dist/2020.js';
import type { CodeKeywordDefinition, KeywordCxt } from 'ajv/dist/2020.js';
import { SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from './subschemas.js';

/** Work units any validation may spend on each side, however small the value. */
export const VALIDATION_WORK_BASE = 65_536;
/** How many times the work of a validation that applies no subschema twice to one place each budget allows. */
export const VALIDATION_WORK_FACTOR = 4;
/** Size units counted at most (a value of 1 MiB has about a million): a larger value gets the budget of this size. */
const MAX_COUNTED_SIZE = 1 << 26;

/**
 * Thrown by a validator `compileSchema` made when the value costs more work than its budget. Work
 * is counted on two sides, each against a budget of its own, so that neither pays for the other:
 * - the value's: each application of a subschema costs the own size of the value it touches (1,
 *   plus its length for a string or an array, plus 1 and the length of each key for an object);
 *   the budget is `VALIDATION_WORK_BASE` plus `VALIDATION_WORK_FACTOR` times the number of
 *   subschemas times the value's size (the own sizes of it and every value in it);
 * - the schema's: each application costs the subschema's own size (1, plus the names it lists in
 *   `properties`, `patternProperties`, `required`, `dependentRequired`, `dependentSchemas` and
 *   `dependencies`, plus the size of its `enum` and `const` values: what the validator checks
 *   whatever the value holds); the budget is `VALIDATION_WORK_BASE` plus `VALIDATION_WORK_FACTOR`
 *   times the sum of those own sizes times the number of values.
 * A validation that applies no subschema twice to the same place stays within both, so only a
 * schema that applies subschemas to the same values again and again, multiplying the work with each
 * level of nesting (a `oneOf` of objects whose recursive member the validator checks before the
 * member that tells the branches apart; definitions that apply the next one twice), reaches one.
 * Like `PatternBudgetExceeded`, it is no answer about the value, neither valid nor invalid: every
 * toolseal caller treats it as a validator that throws (a tool call or proposal is held).
 */
export class ValidationBudgetExceeded extends RangeError {
  /** The work units the validation was allowed on the side that ran out. */
  readonly budget: number;

  constructor(budget: number) {
    super(
      `validation needs more than ${budget} work units: the schema applies subschemas to the same values again and again; in each "oneOf"/"anyOf" branch, list the property that tells the branches apart ("const") before the recursive one`,
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

// The validation running now: what is left of each budget (unbounded outside one, as for a
// validator of `createPinnedAjv` that `compileSchema` did not wrap).
let valueWorkLeft = Number.POSITIVE_INFINITY;
let valueBudget = Number.POSITIVE_INFINITY;
let schemaWorkLeft = Number.POSITIVE_INFINITY;
let schemaBudget = Number.POSITIVE_INFINITY;

/**
 * Called by the generated code each time a subschema is applied to `data`, before anything else of
 * it: the value's own size on one side, the subschema's own size (`ownSizeOf`) on the other.
 */
function spendWork(data: unknown, subschemaSize: number): void {
  valueWorkLeft -= sizeOf(data);
  schemaWorkLeft -= subschemaSize;
  if (valueWorkLeft < 0) throw new ValidationBudgetExceeded(valueBudget);
  if (schemaWorkLeft < 0) throw new ValidationBudgetExceeded(schemaBudget);
}

/**
 * Spends `units` of the value's side for work a keyword does beyond the own size of the value it
 * is applied to (`uniqueItems` reading every item of an array of objects).
 */
export function spendValueWork(units: number): void {
  valueWorkLeft -= units;
  if (valueWorkLeft < 0) throw new ValidationBudgetExceeded(valueBudget);
}

/** The size of `data` (the own sizes of it and every value in it) and how many values it holds, counted up to `MAX_COUNTED_SIZE`; iterative. */
function measureValue(data: unknown): { readonly size: number; readonly values: number } {
  let size = 0;
  let values = 0;
  const pending: unknown[] = [data];
  while (pending.length > 0 && size < MAX_COUNTED_SIZE) {
    const value = pending.pop();
    size += sizeOf(value);
    values += 1;
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
  return { size: Math.min(size, MAX_COUNTED_SIZE), values };
}

/** The budget state to restore when a validation ends (`beginWorkScope`). */
export interface WorkScope {
  readonly valueLeft: number;
  readonly valueBudget: number;
  readonly schemaLeft: number;
  readonly schemaBudget: number;
}

/** What `instrumentSchema` found: the number of subschemas, and the sum of their own sizes. */
export interface SchemaWork {
  readonly subschemas: number;
  readonly ownSizes: number;
}

/**
 * Gives the validation of `data` starting now, against a schema of `work` (`instrumentSchema`), its
 * own budgets; returns the ones to restore after it (`endWorkScope`). Reads every value of `data`
 * once; when that throws (a getter), the state is as it was and the error passes through.
 */
export function beginWorkScope(data: unknown, work: SchemaWork): WorkScope {
  const outer = { valueLeft: valueWorkLeft, valueBudget, schemaLeft: schemaWorkLeft, schemaBudget };
  let measured: { readonly size: number; readonly values: number };
  try {
    measured = measureValue(data);
  } catch (error) {
    // A getter or Proxy trap of `data` threw: the state is the caller's again, and so is the error.
    endWorkScope(outer);
    throw error;
  }
  valueBudget = VALIDATION_WORK_BASE + VALIDATION_WORK_FACTOR * work.subschemas * measured.size;
  schemaBudget = VALIDATION_WORK_BASE + VALIDATION_WORK_FACTOR * work.ownSizes * measured.values;
  valueWorkLeft = valueBudget;
  schemaWorkLeft = schemaBudget;
  return outer;
}

/** Ends the validation `beginWorkScope` began. */
export function endWorkScope(outer: WorkScope): void {
  valueWorkLeft = outer.valueLeft;
  valueBudget = outer.valueBudget;
  schemaWorkLeft = outer.schemaLeft;
  schemaBudget = outer.schemaBudget;
}

/** The keyword `instrumentSchema` adds to every subschema: spends the work of applying it (`spendWork`). */
export const WORK_KEYWORD = 'x-toolseal-work';

/**
 * Runs first in its subschema (before `$ref`, the first keyword Ajv applies to any type). Its value
 * is the subschema's own size (`spendWork`): a number, so that no `$ref` can resolve to it as a
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How many entries `value` lists: the keys of an object, the items of an array, 0 otherwise. */
function entriesOf(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return typeof value === 'object' && value !== null ? Object.keys(value).length : 0;
}

/**
 * A subschema's own size: 1, plus the names it lists in `properties`, `patternProperties`,
 * `required`, `dependentRequired` (and their lists), `dependentSchemas` and `dependencies` (and
 * their lists), plus the size of its `enum` and `const` values (`measureValue`): what the validator
 * checks each time it applies the subschema, whatever the value holds.
 */
function ownSizeOf(node: Record<string, unknown>): number {
  let size = 1;
  for (const keyword of ['properties', 'patternProperties', 'required', 'dependentSchemas']) {
    if (Object.hasOwn(node, keyword)) size += entriesOf(node[keyword]);
  }
  for (const keyword of ['dependentRequired', 'dependencies']) {
    const map = node[keyword];
    if (!Object.hasOwn(node, keyword) || !isRecord(map)) continue;
    size += entriesOf(map);
    for (const listed of Object.values(map)) if (Array.isArray(listed)) size += listed.length;
  }
  if (Object.hasOwn(node, 'enum')) size += measureValue(node.enum).size;
  if (Object.hasOwn(node, 'const')) size += measureValue(node.const).size;
  return size;
}

/**
 * A copy of `schema` with `WORK_KEYWORD` in every subschema that is an object (the keywords of
 * `subschemasOf`), its value the subschema's own size (`ownSizeOf`), and how many subschemas there
 * are with the sum of their own sizes. The copy keeps every other member as it is (`const`, `enum`,
 * property names, `$id`s and `$ref`s alike), and shares what the original shares. Iterative.
 */
export function instrumentSchema(schema: Record<string, unknown>): { readonly schema: Record<string, unknown>; readonly work: SchemaWork } {
  const copies = new Map<object, Record<string, unknown>>();
  let ownSizes = 0;
  const pending: Record<string, unknown>[] = [];
  const copyOf = (node: unknown): unknown => {
    if (!isRecord(node)) return node;
    const known = copies.get(node);
    if (known !== undefined) return known;
    // Own members as data properties: a property named `__proto__` stays one.
    const copy: Record<string, unknown> = { ...node };
    const ownSize = ownSizeOf(node);
    ownSizes += ownSize;
    Object.defineProperty(copy, WORK_KEYWORD, { value: ownSize, enumerable: true, writable: true, configurable: true });
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
  return { schema: root, work: { subschemas: copies.size, ownSizes } };
}
