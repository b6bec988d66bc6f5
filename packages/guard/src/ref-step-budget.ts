// Internal to @toolseal/guard: the work budget of one validation through `$ref`s, which
// `compileSchema` gives every validator of a schema that has any.
import { _ } from 'ajv/dist/2020.js';
import type { CodeKeywordDefinition, KeywordCxt } from 'ajv/dist/2020.js';
import refKeyword from 'ajv/dist/vocabularies/core/ref.js';

/** `$ref` applications one validation may make before any value: enough for any small value. */
export const REF_STEP_BASE = 1_024;
/** `$ref` applications one validation may make per value it is given (each member, item and scalar counts one). */
export const REF_STEPS_PER_VALUE = 32;
/** Values counted at most (the guard's default limits allow 65,536): a larger value gets the budget of this many. */
const MAX_COUNTED_VALUES = 1 << 20;

/**
 * Thrown by a validator `compileSchema` made when the value costs more `$ref` applications than
 * its budget (`REF_STEP_BASE` plus `REF_STEPS_PER_VALUE` per value in it): the contract's
 * combinators apply recursive subschemas to the same values again and again, so that each level
 * of nesting multiplies the work (a `oneOf` of objects whose recursive member the validator
 * checks before the member that tells the branches apart: a 341-byte value took minutes). Like
 * `PatternBudgetExceeded`, it is no answer about the value, neither valid nor invalid: every
 * toolseal caller treats it as a validator that throws (a tool call or proposal is held).
 */
export class ValidationBudgetExceeded extends RangeError {
  /** The `$ref` applications the validation was allowed. */
  readonly budget: number;

  constructor(budget: number) {
    super(
      `validation needs more than ${budget} "$ref" applications (${REF_STEP_BASE} and ${REF_STEPS_PER_VALUE} per value in the data): the schema's combinators apply recursive subschemas to the same values again and again; in each "oneOf"/"anyOf" branch, list the property that tells the branches apart ("const") before the recursive one`,
    );
    this.name = 'ValidationBudgetExceeded';
    this.budget = budget;
  }
}

// The validation running now: what is left of its budget (unbounded outside one, as for a
// validator of `createPinnedAjv` that `compileSchema` did not wrap).
let stepsLeft = Number.POSITIVE_INFINITY;
let stepBudget = Number.POSITIVE_INFINITY;

/** Called by the generated code before each `$ref` is applied. */
function countRefStep(): void {
  stepsLeft -= 1;
  if (stepsLeft < 0) throw new ValidationBudgetExceeded(stepBudget);
}

/** The values in `data` (itself included), counted up to `MAX_COUNTED_VALUES`; iterative, so a cycle or deep nesting ends. */
function countValues(data: unknown): number {
  let count = 0;
  const pending: unknown[] = [data];
  while (pending.length > 0 && count < MAX_COUNTED_VALUES) {
    const value = pending.pop();
    count += 1;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length && pending.length < MAX_COUNTED_VALUES; index++) pending.push(value[index]);
    } else {
      for (const key of Object.keys(value)) {
        if (pending.length >= MAX_COUNTED_VALUES) break;
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return count;
}

/** The budget state to restore when a validation ends (`beginRefStepScope`). */
export interface RefStepScope {
  readonly left: number;
  readonly budget: number;
}

/** Gives the validation of `data` starting now its own budget; returns the one to restore after it. */
export function beginRefStepScope(data: unknown): RefStepScope {
  const outer = { left: stepsLeft, budget: stepBudget };
  stepBudget = REF_STEP_BASE + REF_STEPS_PER_VALUE * countValues(data);
  stepsLeft = stepBudget;
  return outer;
}

/** Ends the validation `beginRefStepScope` began. */
export function endRefStepScope(outer: RefStepScope): void {
  stepsLeft = outer.left;
  stepBudget = outer.budget;
}

// Ajv's `$ref` keyword is CommonJS: under NodeNext its default import is `module.exports`.
const ajvRef: CodeKeywordDefinition =
  (refKeyword as unknown as { default?: CodeKeywordDefinition }).default ?? (refKeyword as unknown as CodeKeywordDefinition);

/**
 * Ajv's `$ref`, counting each application first (`countRefStep`): only `$ref` applies a subschema
 * more times than the schema has places (recursion, or one definition reached from many), so
 * counting it bounds the work of a whole validation.
 */
export const COUNTED_REF_KEYWORD: CodeKeywordDefinition = {
  ...ajvRef,
  code(cxt: KeywordCxt, ruleType?: string): void {
    const step = cxt.gen.scopeValue('func', { ref: countRefStep });
    cxt.gen.code(_`${step}()`);
    ajvRef.code(cxt, ruleType);
  },
};
