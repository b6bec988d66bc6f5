import type { ErrorCode, JsonValue } from '@toolseal/contracts';
import { pointerSegments } from './json-pointer.js';

/** An array index as a declared template's `*` matches it (`createDeclaredFields`). */
const INDEX = /^(?:0|[1-9][0-9]{0,5})$/;

/**
 * Whether `field`, an error reason's field the tool's input schema declares, names a place the
 * call's validated `args` hold: `""` (the whole arguments), or a pointer each of whose segments
 * but the last reaches an existing member or item, and whose last segment is a held item of an
 * array or a member of an object, present or not (a `required` refusal names the property its
 * parent lacks).
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
  if (field === '') return true;
  if (args === null && code === 'INVALID_ARGUMENTS') return true;
  const segments = pointerSegments(field);
  let current: JsonValue | undefined = args ?? undefined;
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
