import type { ErrorReason, JsonValue } from '@toolseal/contracts';
import { cutToDeclaredFields, heldPrefix, holdsPlace } from '@toolseal/guard';
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
    const held = heldPrefix(args, field);
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
 * names `""` or an argument field the tool's input schema declares, at a place the call's validated
 * `args` hold (`holdsPlace` of `@toolseal/guard`). A reason that names anything else could
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
  for (const reason of reasons) if (!fields.declares(reason.field) || !holdsPlace(args, reason.field)) return false;
  return true;
}

