import type { JsonValue } from '@toolseal/contracts';

/** An array index as a declared template's `*` matches it (`createDeclaredFields` of `@toolseal/guard`). */
const INDEX = /^(?:0|[1-9][0-9]{0,5})$/;

/**
 * Whether `field`, a rule reason's field the contract already declares, names a place the
 * validator's copy of the proposal holds: `""` (the whole proposal), or a pointer each of whose
 * segments but the last reaches an existing member or item, and whose last segment is a held item
 * of an array or a member of an object, present or not (a rule may name an optional property the
 * proposal left out, as a `required` refusal names the property its parent lacks). Nothing lies
 * below a string, number, boolean or `null`.
 *
 * The declared-field check alone lets `*` stand for any index of up to six digits, so a rule set
 * could pick digits that reach the model in the error it reads (`/lines/908172/quantity` for a
 * one-line refund: a numeric subject id, say). Requiring the place to exist leaves it no digits of
 * its own.
 *
 * This is exactly the rule `namesHeldPlace` of `@toolseal/result` applies to an error reason before
 * sealing (and `verifyResult` after), and the one the dispatcher holds a proposal validator's rule
 * reasons to, written out again because `@toolseal/result` is not a dependency of this package.
 * Only its parsed-arguments case applies: rules run on a proposal that passed the structural
 * contract, never on arguments that did not parse (result's `null`), and their code is
 * RULE_REJECTED. Segments are split at `/` without `~0`/`~1` unescaping, as result does; a declared
 * field only has names of `[A-Za-z0-9_]` and indexes, so there is nothing to unescape. As there, a
 * reason that breaks the rule is refused, not cut to a held prefix: the validator treats it as a
 * broken rule set (the proposal is held), as the dispatcher does.
 */
export function namesHeldPlace(proposal: JsonValue, field: string): boolean {
  if (field === '') return true;
  const segments = field.slice(1).split('/');
  let current: JsonValue | undefined = proposal;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string;
    if (Array.isArray(current)) {
      if (!INDEX.test(segment) || Number(segment) >= current.length) return false;
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null) {
      // A missing member may only end the pointer: nothing exists below it.
      if (!Object.hasOwn(current, segment)) return index === segments.length - 1;
      current = current[segment];
    } else {
      // A string, number, boolean or `null` has no places below it.
      return false;
    }
  }
  return true;
}
