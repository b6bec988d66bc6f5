// Internal to @toolseal/guard: where a JSON Schema 2020-12 keeps its subschemas.

// Keywords whose value is a subschema, a list of them, or a map of names to them.
const SUBSCHEMA = ['not', 'if', 'then', 'else', 'contains', 'items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'additionalItems'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * The direct subschemas of `schema` (an object), in no particular order: never a value (`const`,
 * `enum`, `default`, `examples`) nor a property name, which can look like a schema.
 */
export function subschemasOf(schema: Readonly<Record<string, unknown>>): unknown[] {
  const found: unknown[] = [];
  for (const keyword of SUBSCHEMA) if (Object.hasOwn(schema, keyword)) found.push(schema[keyword]);
  for (const keyword of SUBSCHEMA_LISTS) {
    const list = schema[keyword];
    if (Object.hasOwn(schema, keyword) && Array.isArray(list)) found.push(...list);
  }
  for (const keyword of SUBSCHEMA_MAPS) {
    const map = schema[keyword];
    if (Object.hasOwn(schema, keyword) && typeof map === 'object' && map !== null && !Array.isArray(map)) found.push(...Object.values(map));
  }
  return found;
}
