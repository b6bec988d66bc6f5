import type { ErrorCode, JsonValue } from '@toolseal/contracts';
import { holdsPlace } from '@toolseal/guard';

/**
 * Whether `field`, an error reason's field the tool's input schema declares, names a place the
 * call's validated `args` hold (`holdsPlace` of `@toolseal/guard`): `""` (the whole arguments), or
 * a pointer each of whose segments but the last reaches an existing member or item, and whose last
 * segment is a held item of an array or a member of an object, present or not (a `required`
 * refusal names the property its parent lacks).
 *
 * The template match alone lets `*` stand for any index up to six digits, so a component could
 * pick digits that reach the model in a `trusted_control` error (`/lines/900100/quantity` for one
 * line: a numeric subject id, say). Requiring the place to exist leaves it no digits of its own.
 *
 * Arguments that never parsed (`null`) hold nothing to check against: an INVALID_ARGUMENTS
 * refusal of them (the guard's) names places of the raw text, and only the template check applies;
 * any other code then needs `""`. Called only for reasons, never on a data result's path.
 */
export function namesHeldPlace(code: ErrorCode, args: JsonValue | null, field: string): boolean {
  if (args === null) return field === '' || code === 'INVALID_ARGUMENTS';
  return holdsPlace(args, field);
}
