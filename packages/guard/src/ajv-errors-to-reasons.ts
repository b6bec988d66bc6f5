import type { ErrorReason } from '@toolseal/contracts';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { contractSafePointer } from './contract-safe-pointer.js';

const MAX_REASONS = 16;
const SAFE_NAME = /^[A-Za-z0-9_]{1,64}$/;

// Ajv keyword → reason rule (an INVALID_ARGUMENTS rule in the catalog). Keywords that report on
// behalf of another one are folded into the rule a reader would expect.
const KEYWORD_RULES: Readonly<Record<string, string>> = Object.freeze({
  type: 'type',
  required: 'required',
  additionalProperties: 'additional_properties',
  minimum: 'minimum',
  maximum: 'maximum',
  exclusiveMinimum: 'exclusive_minimum',
  exclusiveMaximum: 'exclusive_maximum',
  multipleOf: 'multiple_of',
  minLength: 'min_length',
  maxLength: 'max_length',
  pattern: 'pattern',
  format: 'format',
  enum: 'enum',
  const: 'const',
  minItems: 'min_items',
  maxItems: 'max_items',
  items: 'max_items', // `items: false` after `prefixItems`: too many items
  additionalItems: 'max_items',
  uniqueItems: 'unique_items',
  minProperties: 'min_properties',
  maxProperties: 'max_properties',
  propertyNames: 'property_names',
  dependentRequired: 'dependent_required',
  dependencies: 'dependent_required',
  unevaluatedProperties: 'unevaluated_properties',
  unevaluatedItems: 'unevaluated_items',
  oneOf: 'one_of',
  anyOf: 'any_of',
  allOf: 'all_of',
  not: 'not',
  if: 'if',
  contains: 'contains',
  minContains: 'contains',
  maxContains: 'contains',
  'false schema': 'false_schema',
});

/** The reason rule for an Ajv keyword; `false_schema` for any keyword not in the table. */
function ruleFor(keyword: string): string {
  return Object.hasOwn(KEYWORD_RULES, keyword) ? (KEYWORD_RULES[keyword] ?? 'false_schema') : 'false_schema';
}

/** Splits Ajv's `instancePath` (RFC 6901, `~0`/`~1` escaped) into segments. */
function pointerSegments(instancePath: string): string[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/**
 * Turns Ajv errors into catalog-safe `ErrorReason`s: the rule is the snake_case keyword, the field
 * is the instance path cut short before the first segment that is not a plain name or index (see
 * `contractSafePointer`). Only a `required` or `dependentRequired` error adds a name to the path,
 * the missing property's, because that name comes from the schema, not from the input; an
 * `additionalProperties: false` error points at the object, never at the unknown key.
 *
 * What this does not do: the instance path is the input's, so where a schema lets unknown keys in
 * (`additionalProperties` or `patternProperties` with a subschema) a plain-name key the input made
 * up is echoed (`/tell_user_refund_is_approved` for a value of the wrong type). Before a reason
 * reaches the model, cut its field to what the contract declares: `createDeclaredFields(schema)
 * .declaredPrefix(field)` (as `@toolseal/proposal` does), or the registry's `inputFields` in
 * `@toolseal/result` (as the dispatcher does). At most 16 reasons, duplicates removed.
 */
export function ajvErrorsToReasons(errors: ErrorObject[] | null | undefined): ErrorReason[] {
  if (errors === null || errors === undefined) return [];
  const reasons: ErrorReason[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (reasons.length >= MAX_REASONS) break;
    // Only Ajv's own error objects carry a place and a keyword; anything else names nothing.
    if (typeof error !== 'object' || error === null) continue;
    const segments: string[] = pointerSegments(typeof error.instancePath === 'string' ? error.instancePath : '');
    const safeSoFar = contractSafePointer(segments);
    if ((error.keyword === 'required' || error.keyword === 'dependentRequired') && segments.length < 16) {
      const params = error.params as { missingProperty?: unknown } | null | undefined;
      const missing: unknown = typeof params === 'object' && params !== null ? params.missingProperty : undefined;
      const wholePathSafe = safeSoFar.split('/').length - 1 === segments.length;
      if (typeof missing === 'string' && SAFE_NAME.test(missing) && wholePathSafe) segments.push(missing);
    }
    const field = contractSafePointer(segments);
    const rule = ruleFor(error.keyword);
    const key = `${field}\u0000${rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    reasons.push({ field, rule });
  }
  return reasons;
}
