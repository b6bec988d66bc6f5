// Internal to @toolseal/guard: where a JSON Schema 2020-12 keeps its subschemas, as the pinned Ajv
// finds them (it registers the `$id`s and applies the `$ref`s of every one).

// Keywords whose value is a subschema, a list of them, or a map of names to them. `contentSchema`
// is only an annotation, but Ajv registers the `$id`s inside it, so a `$ref` can lead there.
export const SUBSCHEMA_KEYWORDS: readonly string[] = [
  'not',
  'if',
  'then',
  'else',
  'contains',
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'additionalItems',
  'contentSchema',
];
export const SUBSCHEMA_LIST_KEYWORDS: readonly string[] = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
// `dependencies` maps a name to a subschema or to a list of names (only the subschemas count).
export const SUBSCHEMA_MAP_KEYWORDS: readonly string[] = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];

/** Whether `value` is a schema: an object (not an array) or a boolean. */
function isSchema(value: unknown): boolean {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

/**
 * The direct subschemas of `schema` (an object), in no particular order: never a value (`const`,
 * `enum`, `default`, `examples`), a property name, which can look like a schema, nor a list of
 * names of `dependencies`.
 */
export function subschemasOf(schema: Readonly<Record<string, unknown>>): unknown[] {
  const found: unknown[] = [];
  for (const keyword of SUBSCHEMA_KEYWORDS) if (Object.hasOwn(schema, keyword)) found.push(schema[keyword]);
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    const list = schema[keyword];
    if (Object.hasOwn(schema, keyword) && Array.isArray(list)) found.push(...list);
  }
  for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
    const map = schema[keyword];
    if (Object.hasOwn(schema, keyword) && typeof map === 'object' && map !== null && !Array.isArray(map)) {
      for (const value of Object.values(map)) if (isSchema(value)) found.push(value);
    }
  }
  return found;
}
