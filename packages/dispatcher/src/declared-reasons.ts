import type { ErrorReason } from '@toolseal/contracts';
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
 * names `""` or an argument field the tool's input schema declares. A reason that names anything
 * else could carry free text into an error the model reads as `trusted_control` (any plain-name
 * pointer passes the catalog's shape check), so the answer is treated as broken.
 */
export function declaresEveryField(fields: InputFieldTemplates, reasons: readonly ErrorReason[] | undefined): boolean {
  if (reasons === undefined) return true;
  for (const reason of reasons) if (!fields.declares(reason.field)) return false;
  return true;
}
