import type { ErrorReason, JsonValue } from '@toolseal/contracts';
import { cutToDeclaredFields } from '@toolseal/guard';
import type { InputFieldTemplates } from '@toolseal/result';

/**
 * Reasons the dispatcher derives from the model's own arguments (guard, input schema): each field
 * is cut to its longest prefix the tool's input schema declares, and duplicates are removed. The
 * arguments may hold keys the contract does not know (that is often why they were refused); their
 * names never reach a `trusted_control` error.
 */
export function projectInputReasons(fields: InputFieldTemplates, reasons: readonly ErrorReason[]): ErrorReason[] {
  return cutToDeclaredFields(fields, reasons);
}

/**
 * A proposal validator's shape reasons (INVALID_ARGUMENTS): cut to declared prefixes as the
 * dispatcher's own are, and then each field also at the first array index the call's arguments do
 * not hold. The validator is a host component, and a declared `*` would otherwise let it name
 * digits of its choosing (`/lines/900100/quantity`). Duplicates the cuts make are removed.
 */
export function projectShapeReasons(
  fields: InputFieldTemplates,
  reasons: readonly ErrorReason[],
  args: JsonValue | null,
): ErrorReason[] {
  const seen = new Set<string>();
  const cut: ErrorReason[] = [];
  for (const { field, rule } of projectInputReasons(fields, reasons)) {
    const held = heldIndexPrefix(args, field);
    const key = `${held}\u0000${rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    cut.push({ field: held, rule });
  }
  return cut;
}

/**
 * Reasons a host component states (a handler, a trusted check, a proposal rule set), as they are
 * sealed: without repeats and in one canonical order (by field, then rule, comparing UTF-16 code
 * units), so that neither the order nor the count of the reasons a component returns can carry
 * digits of its choosing to the model. Which (field, rule) pairs it names is still its choice.
 */
export function canonicalReasons(reasons: readonly ErrorReason[]): ErrorReason[] {
  const seen = new Set<string>();
  const unique: ErrorReason[] = [];
  for (const { field, rule } of reasons) {
    const key = `${field}\u0000${rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push({ field, rule });
  }
  return unique.sort((left, right) => compareCodeUnits(left.field, right.field) || compareCodeUnits(left.rule, right.rule));
}

/** Plain UTF-16 code-unit order (what `<` does on strings), never locale-dependent. */
function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
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

/** Whether each array index in `field` addresses an item `value` holds (see `heldIndexPrefix`). */
function indexesExistIn(value: JsonValue | null, field: string): boolean {
  return heldIndexPrefix(value, field) === field;
}

/**
 * The longest prefix of `field` (a JSON Pointer) that names a place `value` holds, as
 * `sealResult` of `@toolseal/result` requires of a reason (`namesHeldPlace`): each segment that
 * meets an array is the index of one of its items, each that meets an object is one of its members
 * or, as the last segment only, a member it leaves out (a missing required field), and nothing
 * lies below a string, number, boolean or `null`. `field` is cut before the first segment that is
 * not so. Arguments that never parsed (`null`) hold nothing: only `""` is held then.
 */
function heldIndexPrefix(value: JsonValue | null, field: string): string {
  if (field === '') return field;
  const segments = field.slice(1).split('/');
  let current: JsonValue | undefined = value ?? undefined;
  let end = 0;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string;
    if (Array.isArray(current)) {
      if (!/^(?:0|[1-9][0-9]{0,5})$/.test(segment) || Number(segment) >= current.length) return field.slice(0, end);
      current = current[Number(segment)];
    } else if (typeof current === 'object' && current !== null) {
      if (!Object.hasOwn(current, segment)) return index === segments.length - 1 ? field : field.slice(0, end);
      current = current[segment];
    } else {
      return field.slice(0, end);
    }
    end += 1 + segment.length;
  }
  return field;
}
