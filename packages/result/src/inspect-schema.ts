/**
 * Start-up inspection of a tool's schemas. An output schema must be exact at every level so that
 * nothing a handler adds can pass: this walk proves it before the first call, and collects the
 * places the seal path must check further (links, media types, echoed fields).
 */

/** What the walk found in one schema. */
export interface SchemaInspection {
  /** Why the schema is not acceptable; empty when it is. */
  problems: string[];
  /** Pointer templates (`*` = any array index) of string fields with `format: "uri"`. */
  uriPointers: string[];
  /** Pointer templates of fields named `media_type` or `mime_type`. */
  mediaPointers: string[];
  /** Pointers of every declared property reached through objects only (no arrays): echo targets. */
  scalarPaths: Set<string>;
  /** Every property name the schema declares, at any depth. */
  propertyNames: Set<string>;
}

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean', 'null']);
const ANNOTATIONS = ['title', 'description', '$comment', 'examples', 'deprecated', 'readOnly', 'writeOnly'];
const ANY_TYPE = ['type', 'enum', 'const', ...ANNOTATIONS];
const BY_TYPE: Record<string, readonly string[]> = {
  object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'dependentRequired'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  boolean: [],
  null: [],
};
const ROOT_ONLY = ['$schema', '$id'];
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
/** Property names that stay contract-safe in JSON Pointers (see `ErrorReason.field`). */
const PROPERTY_NAME = /^[A-Za-z0-9_]{1,64}$/;
const MEDIA_FIELDS = new Set(['media_type', 'mime_type']);
const MAX_SCHEMA_DEPTH = 32;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(node: Record<string, unknown>): string[] | null {
  const { type } = node;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type) && type.length > 0 && type.every((item) => typeof item === 'string')) return type as string[];
  return null;
}

/**
 * An output node declares one type, or one type and `"null"` (the only union the pinned Ajv's
 * strict mode accepts). Returns the non-null type and whether `null` is allowed.
 */
function outputTypeOf(node: Record<string, unknown>): { type: string; nullable: boolean } | null {
  const { type } = node;
  if (typeof type === 'string') return { type, nullable: false };
  if (Array.isArray(type) && type.length === 2 && type.includes('null')) {
    const other = type.find((item) => item !== 'null');
    if (typeof other === 'string' && other !== 'null') return { type: other, nullable: true };
  }
  return null;
}

function emptyInspection(): SchemaInspection {
  return { problems: [], uriPointers: [], mediaPointers: [], scalarPaths: new Set(), propertyNames: new Set() };
}

/**
 * Checks that `schema` is an exact output schema (see `ToolSpec.output_schema`) and collects the
 * fields the seal path checks beyond the schema.
 */
export function inspectOutputSchema(schema: unknown): SchemaInspection {
  const inspection = emptyInspection();
  if (!isRecord(schema)) {
    inspection.problems.push('output_schema must be an object');
    return inspection;
  }
  const root = outputTypeOf(schema);
  if (root === null || root.type !== 'object' || root.nullable) {
    inspection.problems.push('output_schema root must be { "type": "object" } (model_result.data is an object)');
  }
  if (schema.$schema !== undefined && schema.$schema !== DRAFT_2020_12) {
    inspection.problems.push(`output_schema $schema must be ${DRAFT_2020_12}`);
  }
  walkOutput(schema, '', '', true, 0, true, inspection);
  return inspection;
}

function walkOutput(
  node: unknown,
  schemaPath: string,
  template: string,
  throughObjectsOnly: boolean,
  depth: number,
  isRoot: boolean,
  inspection: SchemaInspection,
): void {
  const where = schemaPath === '' ? 'output_schema' : `output_schema${schemaPath}`;
  if (depth > MAX_SCHEMA_DEPTH) {
    inspection.problems.push(`${where}: nested deeper than ${MAX_SCHEMA_DEPTH}`);
    return;
  }
  if (!isRecord(node)) {
    inspection.problems.push(`${where}: every subschema must be an object (boolean schemas are not exact)`);
    return;
  }
  const declared = outputTypeOf(node);
  if (declared === null) {
    inspection.problems.push(`${where}: every subschema must declare one "type" (or one type and "null")`);
    return;
  }
  const { type } = declared;
  if (!TYPES.has(type)) {
    inspection.problems.push(`${where}: unknown type ${JSON.stringify(type)}`);
    return;
  }
  const types = [type];
  const allowed = new Set<string>(ANY_TYPE);
  for (const type of types) for (const keyword of BY_TYPE[type] ?? []) allowed.add(keyword);
  if (isRoot) for (const keyword of ROOT_ONLY) allowed.add(keyword);
  for (const keyword of Object.keys(node)) {
    if (!allowed.has(keyword)) {
      inspection.problems.push(
        `${where}: keyword ${JSON.stringify(keyword)} is not allowed here (output schemas use no composition, references or open objects, and only keywords of the declared type)`,
      );
    }
  }
  const bounded = node.enum !== undefined || node.const !== undefined;

  if (types.includes('string')) {
    if (!bounded && typeof node.maxLength !== 'number') inspection.problems.push(`${where}: a string needs "maxLength"`);
    if (node.format === 'uri') inspection.uriPointers.push(template);
  }
  if (types.includes('array')) {
    if (typeof node.maxItems !== 'number') inspection.problems.push(`${where}: an array needs "maxItems"`);
    if (node.items === undefined) {
      inspection.problems.push(`${where}: an array needs "items"`);
    } else {
      walkOutput(node.items, `${schemaPath}/items`, `${template}/*`, false, depth + 1, false, inspection);
    }
  }
  if (types.includes('object')) {
    if (node.additionalProperties !== false) {
      inspection.problems.push(`${where}: an object needs "additionalProperties": false`);
    }
    if (!isRecord(node.properties)) {
      inspection.problems.push(`${where}: an object needs "properties"`);
      return;
    }
    for (const [name, child] of Object.entries(node.properties)) {
      if (!PROPERTY_NAME.test(name)) {
        inspection.problems.push(`${where}: property name ${JSON.stringify(name)} must match [A-Za-z0-9_]{1,64}`);
        continue;
      }
      inspection.propertyNames.add(name);
      const childTemplate = `${template}/${name}`;
      if (throughObjectsOnly) inspection.scalarPaths.add(childTemplate);
      if (MEDIA_FIELDS.has(name)) inspection.mediaPointers.push(childTemplate);
      walkOutput(child, `${schemaPath}/properties/${name}`, childTemplate, throughObjectsOnly, depth + 1, false, inspection);
    }
  }
}

const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_SINGLE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];

/**
 * Checks that every object of an input schema rejects unknown properties (`additionalProperties` or
 * `unevaluatedProperties` false), and collects the pointers an echo may name.
 */
export function inspectInputSchema(schema: unknown): SchemaInspection {
  const inspection = emptyInspection();
  if (!isRecord(schema)) {
    inspection.problems.push('input_schema must be an object');
    return inspection;
  }
  walkInput(schema, '', '', true, 0, inspection);
  return inspection;
}

function walkInput(
  node: unknown,
  schemaPath: string,
  template: string | null,
  throughObjectsOnly: boolean,
  depth: number,
  inspection: SchemaInspection,
): void {
  const where = schemaPath === '' ? 'input_schema' : `input_schema${schemaPath}`;
  if (depth > MAX_SCHEMA_DEPTH) {
    inspection.problems.push(`${where}: nested deeper than ${MAX_SCHEMA_DEPTH}`);
    return;
  }
  if (!isRecord(node)) return;
  const types = typesOf(node);
  const isObject = types?.includes('object') === true || isRecord(node.properties);
  if (isObject && node.additionalProperties !== false && node.unevaluatedProperties !== false) {
    inspection.problems.push(`${where}: an object needs "additionalProperties": false`);
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (!isRecord(map)) continue;
    for (const [name, child] of Object.entries(map)) {
      const isProperty = key === 'properties' && template !== null;
      const childTemplate = isProperty && PROPERTY_NAME.test(name) ? `${template}/${name}` : null;
      if (isProperty && childTemplate !== null && throughObjectsOnly) inspection.scalarPaths.add(childTemplate);
      walkInput(child, `${schemaPath}/${key}/${name}`, childTemplate, throughObjectsOnly, depth + 1, inspection);
    }
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    list.forEach((child: unknown, index) => {
      walkInput(child, `${schemaPath}/${key}/${index}`, null, false, depth + 1, inspection);
    });
  }
  for (const key of SUBSCHEMA_SINGLE) {
    if (node[key] === undefined) continue;
    walkInput(node[key], `${schemaPath}/${key}`, null, false, depth + 1, inspection);
  }
}
