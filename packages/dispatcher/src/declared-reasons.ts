import type { ErrorReason, JsonValue } from '@toolseal/contracts';
import { cutToDeclaredFields } from '@toolseal/guard';
import type { InputFieldTemplates } from '@toolseal/result';

/**
 * Reasons the dispatcher derives from the model's own arguments (guard, input schema, proposal
 * shape): each field is cut to its longest prefix the tool's input schema declares, and duplicates
 * are removed. The arguments may hold keys the contract does not know (that is often why they
 * were refused); their names never reach a `trusted_control` error.
 */
export function projectInputReasons(fields: InputFieldTemplates, reasons: readonly ErrorReason[]): ErrorReason[] {
  return cutToDeclaredFields(fields, reasons);
}

/**
 * Whether every reason a host component states (a handler, a trusted check, a proposal rule set)
 * names `""` or an argument field the tool's input schema declares, and every array index in it
 * addresses an item the call's validated `args` hold. A reason that names anything else could
 * carry free text into an error the model reads as `trusted_control` (any plain-name pointer
 * passes the catalog's shape check), and an index the arguments lack could carry digits the
 * component chose (`/ids/900100` for a one-item array: a numeric id the model must not see), so
 * the answer is treated as broken.
 */
export function declaresEveryField(
  fields: InputFieldTemplates,
  reasons: readonly ErrorReason[] | undefined,
  args: JsonValue | null,
): boolean {
  if (reasons === undefined) return true;
  for (const reason of reasons) if (!fields.declares(reason.field) || !indexesExistIn(args, reason.field)) return false;
  return true;
}

/**
 * Whether each segment of `field` (a JSON Pointer) that meets an array in `value` is the index of
 * one of its items. The walk follows `value` as far as it goes: a member the arguments leave out
 * (a missing required field) ends it, and a segment below it that is all digits counts as an index
 * nothing holds.
 */
function indexesExistIn(value: JsonValue | null, field: string): boolean {
  if (field === '') return true;
  let current: JsonValue | undefined = value ?? undefined;
  for (const segment of field.slice(1).split('/')) {
    if (Array.isArray(current)) {
      if (!/^(?:0|[1-9][0-9]{0,5})$/.test(segment) || Number(segment) >= current.length) return false;
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null) {
      current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    } else {
      if (/^[0-9]+$/.test(segment)) return false;
      current = undefined;
    }
  }
  return true;
}
