import type { JsonValue } from '@toolseal/contracts';

/** An array index as a declared template's `*` matches it (`createDeclaredFields`). */
const INDEX = /^(?:0|[1-9][0-9]{0,5})$/;

/**
 * Whether the JSON Pointer `field` names a place `value` holds: `""` (the whole value), or a
 * pointer each of whose segments but the last reaches an existing member or item, and whose last
 * segment is a held item of an array or a member of an object, present or not (a `required`
 * refusal names the property its parent lacks, a rule may name an optional property left out).
 * Nothing lies below a string, number, boolean or `null`. Segments are split at `/` without
 * `~0`/`~1` unescaping: this is for fields a contract declares (`createDeclaredFields`), whose
 * names are `[A-Za-z0-9_]` and indexes, so there is nothing to unescape.
 *
 * For the reasons a component states about arguments: a declared template's `*` lets a field name
 * any index of up to six digits, so a component could pick digits that reach the model in the
 * error it reads (`/lines/900100/quantity` for a one-line refund: a numeric subject id, say).
 * Requiring the place to exist leaves it no digits of its own. `@toolseal/result` holds error
 * reasons to it at sealing and verification, and `@toolseal/proposal` a rule set's reasons.
 */
export function holdsPlace(value: JsonValue, field: string): boolean {
  return heldPrefix(value, field) === field;
}

/**
 * The longest prefix of `field` (a JSON Pointer, split as `holdsPlace` splits it) that names a
 * place `value` holds, by `holdsPlace`'s rule: `field` itself when `value` holds it, cut before the
 * first segment that is not a held item, a member, or (as the last segment only) a missing member.
 * For a reason about arguments that must be kept, cut, rather than refused (the dispatcher's own
 * refusals of input).
 */
export function heldPrefix(value: JsonValue, field: string): string {
  if (field === '') return field;
  const segments = field.slice(1).split('/');
  let current: JsonValue | undefined = value;
  let end = 0;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string;
    if (Array.isArray(current)) {
      if (!INDEX.test(segment) || Number(segment) >= current.length) return field.slice(0, end);
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null) {
      // A missing member may only end the pointer: nothing exists below it.
      if (!Object.hasOwn(current, segment)) return index === segments.length - 1 ? field : field.slice(0, end);
      current = current[segment];
    } else {
      // A string, number, boolean or `null` has no places below it.
      return field.slice(0, end);
    }
    end += 1 + segment.length;
  }
  return field;
}
