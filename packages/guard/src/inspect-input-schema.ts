/**
 * Start-up proof that an input JSON Schema is closed: every value it describes has a type, every
 * object rejects keys the schema does not list, and no keyword lets the pinned Ajv count keys or
 * items evaluated that nothing checked. `@toolseal/result`'s registry runs it on every tool's
 * `input_schema`, and `@toolseal/proposal`'s validator on its proposal schema, so that arguments
 * and proposals can hold only what their contract lists. The keyword tables, the depth bound and
 * the `uniqueItems` bound are shared with the registry's output-schema inspection.
 */
import { isForbiddenKey } from './forbidden-keys.js';

/** What `inspectInputSchema` found in one input schema. */
export interface InputSchemaInspection {
  /** Why the schema is not closed, each prefixed with where (`input_schema/properties/filter: ...`); empty when it is. */
  problems: string[];
  /**
   * Pointers (`/filter/status`) of every property the schema declares that is reached from the
   * root through `properties` only (no arrays, combinators, `$ref`s or definitions): the fields an
   * output may echo.
   */
  scalarPaths: Set<string>;
}

const ANNOTATIONS = ['title', 'description', '$comment', 'examples', 'deprecated', 'readOnly', 'writeOnly'];
/**
 * Keywords a subschema of any type may carry: `type`, `enum`, `const` and the annotations (`title`,
 * `description`, `$comment`, `examples`, `deprecated`, `readOnly`, `writeOnly`). With
 * `KEYWORDS_BY_TYPE`, every keyword an exact output schema may use (`@toolseal/result`), and part
 * of what an input schema may (`inspectInputSchema`). Frozen.
 */
export const ANY_TYPE_KEYWORDS: readonly string[] = Object.freeze(['type', 'enum', 'const', ...ANNOTATIONS]);
/**
 * The validation keywords of each of the seven JSON Schema types (`object`, `array`, `string`,
 * `integer`, `number`, `boolean`, `null`) the schema inspections reason about: what an exact
 * output schema may add to `ANY_TYPE_KEYWORDS` for its declared type, and part of what an input
 * schema may use. Frozen, and so is each list.
 */
export const KEYWORDS_BY_TYPE: Readonly<Record<string, readonly string[]>> = Object.freeze({
  object: Object.freeze(['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'dependentRequired']),
  array: Object.freeze(['items', 'minItems', 'maxItems', 'uniqueItems']),
  string: Object.freeze(['minLength', 'maxLength', 'pattern', 'format']),
  integer: Object.freeze(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']),
  number: Object.freeze(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']),
  boolean: Object.freeze([]),
  null: Object.freeze([]),
});
/** Property names that stay contract-safe in JSON Pointers (see `ErrorReason.field`). */
const PROPERTY_NAME = /^[A-Za-z0-9_]{1,64}$/;
/**
 * How deep the schema inspections follow subschemas (`inspectInputSchema`, and
 * `@toolseal/result`'s output-schema inspection): a subschema nested deeper than 32 is a problem
 * ("nested deeper than 32"), never followed.
 */
export const MAX_INSPECTED_SCHEMA_DEPTH = 32;

/**
 * Most items of a `uniqueItems` array whose `items` do not declare scalar types only: objects,
 * arrays, or items given by `$ref`, `enum` or `const` without a `type` of their own. The pinned Ajv
 * compares such items pair by pair (n² / 2 deep comparisons): 4,096 object items, within the
 * guard's default limits, took over a second to validate, and 4,096 strings reached through a
 * `$ref` some 50 ms against 3 ms. Items declared with a scalar `type` are checked through a map, in
 * linear time, and need no such bound.
 */
export const MAX_UNIQUE_ITEMS = 256;
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** Whether an array subschema's `items` declares scalar types only (Ajv then checks uniqueness through a map). */
function hasScalarItems(node: Record<string, unknown>): boolean {
  const { items } = node;
  if (!isRecord(items)) return false;
  const types = typesOf(items);
  return types !== null && types.every((type) => SCALAR_TYPES.has(type));
}

/**
 * The problem with a `uniqueItems: true` array subschema `node` that the pinned Ajv would check in
 * quadratic time (its `items` do not declare a scalar `type`, and it has no `maxItems` of at most
 * `MAX_UNIQUE_ITEMS`), prefixed with `where` (`input_schema/properties/lines`), or `null`. Both
 * `inspectInputSchema` and `@toolseal/result`'s output-schema inspection report it.
 */
export function uniqueItemsProblem(node: Record<string, unknown>, where: string): string | null {
  if (node.uniqueItems !== true || hasScalarItems(node)) return null;
  if (typeof node.maxItems === 'number' && node.maxItems <= MAX_UNIQUE_ITEMS) return null;
  return `${where}: "uniqueItems" over items not declared with a scalar "type" (objects, arrays, or items given by "$ref", "enum" or "const" alone) needs "maxItems" of at most ${MAX_UNIQUE_ITEMS} (they are compared pair by pair), or "items" with a scalar "type"`;
}

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
 * Subschemas that say what a value of the arguments may be (spec 002: "reject unknown properties at
 * both object levels"; a value a subschema leaves open can hold any keys, `approved` or
 * `tenant_id` included): each must be closed (`isClosed`).
 */
const VALUE_MAPS = ['properties', 'patternProperties'];
const VALUE_LISTS = ['prefixItems'];
const VALUE_SINGLE = ['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems'];
/**
 * Subschemas that apply to the value they sit at together with its own keywords (a typed subschema
 * is narrowed by them; an untyped one is closed only if they are, which `isClosed` checks), or that
 * are reached through a `$ref` (checked where the reference is made): walked for the rules below
 * them, not required to be closed themselves. `if`, `then`, `else` and `contains` are refused
 * (`REFUSED_KEYWORDS`), so never walked.
 */
const NARROWING_MAPS = ['$defs', 'definitions', 'dependentSchemas'];
const NARROWING_LISTS = ['allOf', 'anyOf', 'oneOf'];
const NARROWING_SINGLE = ['not', 'propertyNames'];
/** Combinators a subschema without its own type may defer its closure to, every branch of them. */
const DEFERRING_LISTS = ['allOf', 'anyOf', 'oneOf'];
const CLOSED_HINT =
  'declare "type", "const" or "enum", or be a "$ref" to "#/$defs/<name>", or an "allOf", "anyOf" or "oneOf" whose every subschema does';
/**
 * Keywords that make a subschema describe an object (JSON Schema 2020-12 §10.3.2 and validation
 * §6.5): wherever one appears, the subschema must itself be exact (`additionalProperties: false` or
 * `unevaluatedProperties: false`), whether or not it says `type`.
 */
const OBJECT_KEYWORDS = [
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'required',
  'dependentSchemas',
  'dependentRequired',
  'propertyNames',
  'minProperties',
  'maxProperties',
];
const USE_DEFINITION_REF = 'write a "$ref" to "#/$defs/<name>"';
const USE_ONE_OF = 'write a "oneOf" of exact objects, one per case, to vary the fields';
/**
 * Keywords through which the pinned Ajv counts keys or items evaluated that no passing subschema
 * checked: refused, because `unevaluatedProperties: false` and `unevaluatedItems: false` are exact
 * only if nothing else does. Where the pinned Ajv 8.20 merges what a subschema evaluated into its
 * parent (`mergeEvaluated` and `mergeValidEvaluated` in `ajv/lib/compile/validate/index.ts`, and
 * the keywords that set `it.props`/`it.items` themselves):
 * - `if` (`vocabularies/applicator/if.ts`, `validateIf`): `cxt.mergeEvaluated(schCxt)` with no
 *   check of the result, so an `if` that FAILS still marks evaluated every key its `properties`
 *   name (every key at all with `additionalProperties: false`, or through a `$ref` to an exact
 *   definition) and every item its `items` reaches; `unevaluatedProperties: false` or
 *   `unevaluatedItems: false` beside or above it then lets any key or item through. Refused, and
 *   `then`/`else` with it (they merge only when they pass, `mergeValidEvaluated`, but mean nothing
 *   without `if`, and the pinned strict mode refuses them alone);
 * - `contains` (`vocabularies/applicator/contains.ts`): sets `it.items = true` at compile time,
 *   so every item counts as evaluated whether it matched or not (the specification counts only the
 *   matched ones, 2020-12 core §10.3.1.3): `unevaluatedItems: false` beside or above it rejects no
 *   item. Refused, and `minContains`/`maxContains` with it;
 * - `anyOf` (`validateUnion` in `vocabularies/code.ts`) and `dependentSchemas`
 *   (`validateSchemaDeps` in `vocabularies/applicator/dependencies.ts`): `mergeValidEvaluated`,
 *   passing subschemas only;
 * - `oneOf` (`vocabularies/applicator/oneOf.ts`): `mergeEvaluated` inside `gen.if(schValid)`,
 *   passing branches only (two passing branches fail the `oneOf` itself);
 * - `allOf` (`vocabularies/applicator/allOf.ts`) and an inlined `$ref` (`inlineRefSchema` in
 *   `vocabularies/core/ref.ts`): `mergeEvaluated` whatever the result, but a failing entry fails
 *   the subschema holding it, and a failing subschema's evaluation reaches no parent (`anyOf` and
 *   `oneOf` drop a failing branch's, `not` merges none, `if` and `contains` are refused); a `$ref`
 *   compiled to a function merges its `evaluated` only when the call passed (`callSyncRef`,
 *   `addEvaluatedFrom`);
 * - `not` (`vocabularies/applicator/not.ts`) and `propertyNames`: never merge (a `not` subschema
 *   must fail for the `not` to pass);
 * - `properties` and `prefixItems` mark the names they list and the first items (each checked
 *   against a closed subschema, or the subschema fails); `additionalProperties`, `items`,
 *   `unevaluatedProperties` and `unevaluatedItems` mark every key or item they checked;
 *   `patternProperties` and `dependencies` are refused below, and `discriminator` is not enabled
 *   (the pinned strict mode refuses it as unknown).
 */
const UNCHECKED_EVALUATION = {
  if: `the pinned Ajv counts the keys and items an "if" evaluated as evaluated even when the "if" fails, so an "unevaluatedProperties": false or "unevaluatedItems": false beside or above it rejects nothing; ${USE_ONE_OF}`,
  then: `allowed only with "if", which is refused: ${USE_ONE_OF}`,
  else: `allowed only with "if", which is refused: ${USE_ONE_OF}`,
  contains:
    'the pinned Ajv counts every item evaluated once "contains" is there, matched or not, so an "unevaluatedItems": false beside or above it rejects nothing; "items" says what each item may be',
  minContains: 'allowed only with "contains", which is refused',
  maxContains: 'allowed only with "contains", which is refused',
};
/**
 * The keywords the pinned Ajv knows (JSON Schema 2020-12 and its own) that an input schema may not
 * use, each with why: the walk does not follow them, and each could admit a key or mark one
 * evaluated (`UNCHECKED_EVALUATION`), or names subschemas the walk never checks. A keyword
 * neither here nor in `INPUT_KEYWORDS` is one the pinned Ajv does not know, and its strict mode
 * refuses it when the caller compiles the schema (`compileSchema`).
 */
const REFUSED_KEYWORDS: Record<string, string> = {
  ...UNCHECKED_EVALUATION,
  patternProperties:
    'a pattern admits property names the contract does not list, and their keys are never declared fields (name each property in "properties"; a map of keys the model chooses is an array of exact { "key", "value" } objects)',
  dependencies: 'its schemas are applied unchecked: write "dependentRequired" or "dependentSchemas"',
  $dynamicRef: USE_DEFINITION_REF,
  $dynamicAnchor: USE_DEFINITION_REF,
  $recursiveRef: USE_DEFINITION_REF,
  $recursiveAnchor: USE_DEFINITION_REF,
  $anchor: USE_DEFINITION_REF,
  $schema: 'allowed at the root only',
  $vocabulary: 'meta-schemas only',
  $async: 'arguments are validated synchronously',
  id: 'write "$id", at the root',
  nullable: 'write "type": [<type>, "null"]',
  contentSchema: 'a subschema the walk does not check',
};
/**
 * Every keyword an input subschema may use: the ones the walk reasons about, plus annotations, less
 * `REFUSED_KEYWORDS` (`$schema` is allowed at the root).
 */
const INPUT_KEYWORDS = new Set<string>(
  [
    ...ANY_TYPE_KEYWORDS,
    'default',
    'contentMediaType',
    'contentEncoding',
    ...Object.values(KEYWORDS_BY_TYPE).flat(),
    ...OBJECT_KEYWORDS,
    ...VALUE_LISTS,
    ...VALUE_SINGLE,
    ...NARROWING_MAPS,
    ...NARROWING_LISTS,
    ...NARROWING_SINGLE,
    '$ref',
    '$id',
  ].filter((keyword) => !Object.hasOwn(REFUSED_KEYWORDS, keyword)),
);
/**
 * The only `$ref`s an input schema may make: a definition of the root, by a plain name (no JSON
 * Pointer or percent escapes, so the walk and Ajv cannot read it differently). The walk checks
 * every root `$defs`/`definitions` entry; a reference anywhere else (`#/examples/0`, `#x`,
 * `#/$defs/a/not`) could land on a subschema it never checks. `#` alone does not compile with the
 * pinned Ajv (`addUsedSchema: false`).
 */
const DEFINITION_REF = /^#\/(\$defs|definitions)\/([A-Za-z0-9_.-]{1,128})$/;

/**
 * The root definition a `$ref` names (`DEFINITION_REF`), or `undefined` when the reference has
 * another form or names nothing. The guard's `createDeclaredFields` resolves such a reference to the
 * same subschema, and so does Ajv: only the root may have an `$id`.
 */
function resolveDefinitionRef(root: Record<string, unknown>, ref: unknown): unknown {
  if (typeof ref !== 'string') return undefined;
  const match = DEFINITION_REF.exec(ref);
  if (match === null) return undefined;
  const [, container = '', name = ''] = match;
  const definitions = root[container];
  return isRecord(definitions) && Object.hasOwn(definitions, name) ? definitions[name] : undefined;
}

/**
 * Whether a subschema constrains the JSON type of the value it describes, so that no object with
 * keys of the model's choosing can pass through it where the contract does not list them:
 * - `false` is closed (nothing passes), `true` never is;
 * - a subschema with its own `type`, `const` or `enum` is closed (a `const` or `enum` fixes the
 *   value itself; its other keywords, combinators included, can only narrow it);
 * - any other subschema is closed only when it defers to something (a `$ref` to a root definition,
 *   `allOf`, `anyOf`, `oneOf`) and every subschema it defers to is closed: the `$ref` target and
 *   each branch.
 * A `$ref` of another form, or one that names nothing or loops back without reaching a type, is not
 * closed. `closed` memoizes per subschema (a subschema on the current path counts as open: a cycle
 * closes nothing).
 */
function isClosed(node: unknown, root: Record<string, unknown>, closed: Map<object, boolean>, depth = 0): boolean {
  if (node === false) return true;
  if (!isRecord(node) || depth > MAX_INSPECTED_SCHEMA_DEPTH) return false;
  if (node.type !== undefined || node.const !== undefined || node.enum !== undefined) return true;
  const known = closed.get(node);
  if (known !== undefined) return known;
  closed.set(node, false);
  const deferred: unknown[] = [];
  // Unresolvable: pushed as `undefined`, which is not closed.
  if (node.$ref !== undefined) deferred.push(resolveDefinitionRef(root, node.$ref));
  for (const key of DEFERRING_LISTS) {
    const list = node[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length === 0) deferred.push(undefined);
    else deferred.push(...(list as unknown[]));
  }
  const result = deferred.length > 0 && deferred.every((child) => isClosed(child, root, closed, depth + 1));
  closed.set(node, result);
  return result;
}

/**
 * Whether an array subschema says what every item may be: `items` or `unevaluatedItems` (each a
 * value subschema, so closed), or `prefixItems` with `maxItems` no longer than it. A `const` or
 * `enum` fixes the items itself.
 */
function saysEveryItem(node: Record<string, unknown>): boolean {
  if (node.const !== undefined || node.enum !== undefined) return true;
  if (node.items !== undefined || node.unevaluatedItems !== undefined) return true;
  return Array.isArray(node.prefixItems) && typeof node.maxItems === 'number' && node.maxItems <= node.prefixItems.length;
}

/**
 * Checks that an input schema (a JSON Schema 2020-12 for values the model writes: a tool's
 * `input_schema`, a proposal schema) leaves no value open, so that a value it accepts can hold only
 * what the contract lists: no `approved`, `tenant_id` or `role` key the schema does not declare. A
 * security gate: where the walk cannot prove a construct closed it refuses it, even if some uses of
 * it would be. `@toolseal/result`'s `createToolRegistry` refuses a tool whose `input_schema` has a
 * problem, and `@toolseal/proposal`'s proposal validator its proposal schema.
 * - every subschema that says what a value may be (the root; each `properties` and `prefixItems`
 *   entry; `items`; `unevaluatedItems` given as a schema) constrains its type (`isClosed`): `{}`,
 *   `{ "description": ... }`, `{ "not": ... }` or `true` would accept an object of any keys;
 * - every object (a subschema with `type` `"object"` or any of `OBJECT_KEYWORDS`, wherever it sits:
 *   `allOf`/`anyOf`/`oneOf` branches, `not`, `dependentSchemas` entries, definitions) rejects
 *   unknown properties (`additionalProperties` or `unevaluatedProperties` false);
 * - `additionalProperties` and `unevaluatedProperties` are `false` or absent, never a schema or
 *   `true`: a schema admits keys of the model's choosing, and marks every key evaluated, so an
 *   `unevaluatedProperties: false` at the same place or above it rejects nothing. Keys can then be
 *   evaluated only by `properties`, which the contract lists (and the guard's `createDeclaredFields`
 *   declares);
 * - no keyword of `REFUSED_KEYWORDS`: `if`/`then`/`else` and `contains`, through which the pinned
 *   Ajv counts keys or items evaluated that no passing subschema checked (`UNCHECKED_EVALUATION`),
 *   so `unevaluatedProperties: false` and `unevaluatedItems: false` stay exact; `patternProperties`,
 *   `dependencies`, `$dynamicRef`..., whose effect the walk does not follow (a keyword the pinned
 *   Ajv does not know fails its strict mode); and every `$ref` names a root definition
 *   (`DEFINITION_REF`), which the walk checks;
 * - every array (`type` `"array"`) says what each item may be (`saysEveryItem`);
 * - no subschema anywhere is `true`, and only the root has an `$id` or `$schema` (a nested `$id`
 *   changes what a `$ref` below it names).
 * A keyword the pinned Ajv does not know is passed over here: the proof holds only for a schema
 * that also compiles with `compileSchema` (whose strict mode refuses it), as both callers do.
 * Also collects the pointers an echo may name (`scalarPaths`). Never throws; `schema` is read, never
 * changed.
 *
 * @param schema The schema to inspect (anything: a non-object is itself a problem).
 * @param rootName What the problems call the schema's root: `input_schema` (the default) gives
 *   `input_schema/properties/filter: ...`; the proposal validator passes `schema`.
 */
export function inspectInputSchema(schema: unknown, rootName = 'input_schema'): InputSchemaInspection {
  const inspection: InputSchemaInspection = { problems: [], scalarPaths: new Set() };
  if (!isRecord(schema)) {
    inspection.problems.push(`${rootName} must be an object`);
    return inspection;
  }
  walkInput(schema, '', '', true, 0, true, { root: schema, rootName, closed: new Map(), inspection });
  return inspection;
}

interface InputWalk {
  readonly root: Record<string, unknown>;
  /** What problems call the root (`input_schema`). */
  readonly rootName: string;
  /** `isClosed` results by subschema. */
  readonly closed: Map<object, boolean>;
  readonly inspection: InputSchemaInspection;
}

/** The problems with one input subschema's own keywords (not its subschemas'). */
function checkInputKeywords(node: Record<string, unknown>, where: string, depth: number, walk: InputWalk): void {
  const { inspection } = walk;
  for (const keyword of Object.keys(node)) {
    if (INPUT_KEYWORDS.has(keyword) || (keyword === '$schema' && depth === 0)) continue;
    const why = Object.hasOwn(REFUSED_KEYWORDS, keyword) ? REFUSED_KEYWORDS[keyword] : undefined;
    // Unknown to the pinned Ajv: its strict mode refuses the schema when the caller compiles it
    // (`compileSchema`).
    if (why === undefined) continue;
    inspection.problems.push(`${where}: keyword ${JSON.stringify(keyword)} is not allowed in an input schema (${why})`);
  }
  if (depth > 0 && node.$id !== undefined) {
    inspection.problems.push(`${where}: "$id" is allowed at the root only (a nested "$id" changes what a "$ref" below it names)`);
  }
  if (node.$ref !== undefined) {
    if (typeof node.$ref !== 'string' || !DEFINITION_REF.test(node.$ref)) {
      inspection.problems.push(
        `${where}: "$ref" must name "#/$defs/<name>" or "#/definitions/<name>" (a plain name of [A-Za-z0-9_.-]): the walk checks only those targets`,
      );
    } else if (resolveDefinitionRef(walk.root, node.$ref) === undefined) {
      inspection.problems.push(`${where}: "$ref" ${JSON.stringify(node.$ref)} names no definition of the root`);
    }
  }
  // Only `false`: a schema (even a typed map with `propertyNames` and `maxProperties`) or `true`
  // admits keys of the model's choosing, `tenant_id` included, that no contract lists.
  if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
    inspection.problems.push(
      `${where}: "additionalProperties" must be false (a schema or true admits keys of the model's choosing, and marks every key evaluated, so an "unevaluatedProperties": false here or above rejects none)`,
    );
  }
  if (node.unevaluatedProperties !== undefined && node.unevaluatedProperties !== false) {
    inspection.problems.push(`${where}: "unevaluatedProperties" must be false (a schema or true admits keys of the model's choosing)`);
  }
  const types = typesOf(node);
  const isObject = types?.includes('object') === true || OBJECT_KEYWORDS.some((keyword) => node[keyword] !== undefined);
  if (isObject && node.additionalProperties !== false && node.unevaluatedProperties !== false) {
    inspection.problems.push(
      `${where}: an object (a subschema with "type": "object" or an object keyword) needs "additionalProperties": false (or "unevaluatedProperties": false)`,
    );
  }
  if (types?.includes('array') === true && !saysEveryItem(node)) {
    inspection.problems.push(`${where}: an array needs "items" (or "prefixItems" with "maxItems" no longer than it)`);
  }
  const unique = uniqueItemsProblem(node, where);
  if (unique !== null) inspection.problems.push(unique);
}

function walkInput(
  node: unknown,
  schemaPath: string,
  template: string | null,
  throughObjectsOnly: boolean,
  depth: number,
  isValue: boolean,
  walk: InputWalk,
): void {
  const { inspection } = walk;
  const where = schemaPath === '' ? walk.rootName : `${walk.rootName}${schemaPath}`;
  if (depth > MAX_INSPECTED_SCHEMA_DEPTH) {
    inspection.problems.push(`${where}: nested deeper than ${MAX_INSPECTED_SCHEMA_DEPTH}`);
    return;
  }
  if (node === true) {
    inspection.problems.push(`${where}: a boolean true subschema accepts any value (write one that declares "type", or false)`);
    return;
  }
  if (!isRecord(node)) return;
  if (isValue && !isClosed(node, walk.root, walk.closed)) {
    inspection.problems.push(`${where}: a subschema must constrain its type: ${CLOSED_HINT}`);
  }
  checkInputKeywords(node, where, depth, walk);
  for (const key of [...VALUE_MAPS, ...NARROWING_MAPS]) {
    const map = node[key];
    if (!isRecord(map)) continue;
    const isValueMap = VALUE_MAPS.includes(key);
    for (const [name, child] of Object.entries(map)) {
      if (key === 'properties' && isForbiddenKey(name)) {
        inspection.problems.push(
          `${where}: property ${JSON.stringify(name)} is a key the guard refuses in every value (FORBIDDEN_KEYS: it names a member of Object.prototype), so no value could hold it`,
        );
      }
      const isProperty = key === 'properties' && template !== null;
      const childTemplate = isProperty && PROPERTY_NAME.test(name) ? `${template}/${name}` : null;
      if (isProperty && childTemplate !== null && throughObjectsOnly) inspection.scalarPaths.add(childTemplate);
      walkInput(child, `${schemaPath}/${key}/${name}`, childTemplate, throughObjectsOnly, depth + 1, isValueMap, walk);
    }
  }
  for (const key of [...VALUE_LISTS, ...NARROWING_LISTS]) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    const isValueList = VALUE_LISTS.includes(key);
    list.forEach((child: unknown, index) => {
      walkInput(child, `${schemaPath}/${key}/${index}`, null, false, depth + 1, isValueList, walk);
    });
  }
  for (const key of [...VALUE_SINGLE, ...NARROWING_SINGLE]) {
    if (node[key] === undefined) continue;
    walkInput(node[key], `${schemaPath}/${key}`, null, false, depth + 1, VALUE_SINGLE.includes(key), walk);
  }
}
