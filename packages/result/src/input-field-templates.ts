import { createDeclaredFields, MAX_DECLARED_FIELDS, type DeclaredFields } from '@toolseal/guard';

/**
 * The argument fields a tool's input schema declares, as JSON Pointer templates (`*` = any array
 * index), computed once at registry start-up (the guard's `createDeclaredFields`). `ErrorReason.field`
 * of a tool's errors must name one of them (or be `""`, the whole arguments): a reason then points
 * at a place of the tool's own contract and carries no names a handler, check or rule set made up,
 * even though the model reads it as `trusted_control`. Its array indexes are digits all the same:
 * `sealResult` and `verifyResult` also require the field to name a place the call's arguments hold
 * (`namesHeldPlace`), and so does the dispatcher for its components' reasons. `declaredPrefix` cuts reasons derived
 * from the model's own input (guard and schema violations), which may name keys the contract does
 * not know.
 */
export type InputFieldTemplates = DeclaredFields;

/** Most templates one input schema may declare (recursive schemas are cut at 16 segments). */
export const MAX_INPUT_FIELD_TEMPLATES = MAX_DECLARED_FIELDS;

/**
 * Walks an input schema (already accepted by the pinned Ajv): see `createDeclaredFields`. Throws a
 * `RangeError` past `MAX_INPUT_FIELD_TEMPLATES` (the registry reports it as a `RegistryError`).
 */
export function createInputFieldTemplates(schema: unknown): InputFieldTemplates {
  return createDeclaredFields(schema);
}
