// @ts-check
// Generates the JSON Schemas in the top-level `schemas/` from the contract types.
//
// typescript-json-schema emits draft-07; this module post-processes its output into exact draft
// 2020-12 documents that compile under Ajv's strict mode:
//   - `$schema` 2020-12, a stable `$id`, `definitions` -> `$defs` (and every `$ref` rewritten);
//   - `@asType integer` honoured (`number` -> `integer`); JSDoc descriptions unwrapped;
//   - multi-type unions other than `[T, "null"]` split into `anyOf` (Ajv strictTypes forbids them);
//   - tuple `items: [...]` -> `prefixItems`;
//   - every object with `properties` closed with `additionalProperties: false`;
//   - a fixed key order, so the committed files are byte-stable.
// Anything it does not understand throws: a new typescript-json-schema output must be looked at,
// not silently committed.
//
// One TypeScript program and one generator serve every schema: building them is the slow part.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as TJS from 'typescript-json-schema';

const ts = TJS.ts;

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The contracts package's source directory. */
export const SOURCE_DIR = join(packageDir, 'src');

/** The repository's top-level `schemas/` directory, where the generated files are committed. */
export const SCHEMAS_DIR = resolve(packageDir, '..', '..', 'schemas');

/** The JSON Schema dialect of every generated file. */
export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The base of every generated `$id`. */
export const SCHEMA_ID_BASE = 'https://toolseal.dev/schemas/';

// Keywords typescript-json-schema may emit for these contracts. Anything else fails generation.
const KNOWN_KEYWORDS = new Set([
  '$ref',
  'title',
  'description',
  'type',
  'const',
  'enum',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'additionalItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'additionalProperties',
  'required',
  'anyOf',
  'oneOf',
  'allOf',
  'default',
  'examples',
  'asType',
  'propertyNames',
]);

// Output key order: identity first, then type, then constraints, then children, then `$defs`.
const KEY_ORDER = [
  '$schema',
  '$id',
  '$ref',
  'title',
  'description',
  'type',
  'const',
  'enum',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'prefixItems',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'anyOf',
  'oneOf',
  'allOf',
  'default',
  'examples',
  '$defs',
];

const DEFINITION_NAME = /^[A-Z][A-Za-z0-9]*$/;

/**
 * @typedef {{ [key: string]: unknown }} SchemaObject
 * @typedef {{ name: string; typeName: string; text: string; schema: SchemaObject }} GeneratedSchema
 */

/**
 * `model-result` -> `ModelResult`.
 * @param {string} name
 * @returns {string}
 */
export function typeNameForSchema(name) {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * Reads `SCHEMA_NAMES` from `src/constants.ts`, so the list has one source. Parses that one file
 * only (no program, no build), so the build step that copies the schemas can use it too.
 * @returns {string[]}
 */
export function readSchemaNames() {
  const constantsPath = join(SOURCE_DIR, 'constants.ts');
  const constantsFile = ts.createSourceFile(constantsPath, readFileSync(constantsPath, 'utf8'), ts.ScriptTarget.ES2022);
  /** @type {string[] | undefined} */
  let names;
  /** @param {import('typescript').Node} node */
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'SCHEMA_NAMES') {
      let initializer = node.initializer;
      while (initializer !== undefined && ts.isAsExpression(initializer)) initializer = initializer.expression;
      if (initializer === undefined || !ts.isArrayLiteralExpression(initializer)) {
        throw new Error('SCHEMA_NAMES must be an array literal of strings');
      }
      names = initializer.elements.map((element) => {
        if (!ts.isStringLiteral(element)) throw new Error('SCHEMA_NAMES must be an array literal of strings');
        return element.text;
      });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(constantsFile);
  if (names === undefined) throw new Error('SCHEMA_NAMES not found in src/constants.ts');
  return names;
}

/**
 * @param {unknown} value
 * @returns {value is SchemaObject}
 */
function isSchemaObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * @param {SchemaObject} schema
 * @returns {SchemaObject}
 */
function orderKeys(schema) {
  /** @type {SchemaObject} */
  const ordered = {};
  const keys = Object.keys(schema).sort((a, b) => {
    const rankA = KEY_ORDER.indexOf(a);
    const rankB = KEY_ORDER.indexOf(b);
    if (rankA === -1 || rankB === -1) throw new Error(`no output position for keyword ${rankA === -1 ? a : b}`);
    return rankA - rankB;
  });
  for (const key of keys) ordered[key] = schema[key];
  return ordered;
}

/**
 * @param {string} reference
 * @returns {string}
 */
function convertReference(reference) {
  const prefix = '#/definitions/';
  if (!reference.startsWith(prefix)) throw new Error(`unexpected $ref ${reference}`);
  const name = decodeURIComponent(reference.slice(prefix.length));
  if (!DEFINITION_NAME.test(name)) throw new Error(`unexpected definition name in $ref ${reference}`);
  return `#/$defs/${name}`;
}

/**
 * `[T, "null"]` stays a type array (Ajv strictTypes allows it); it is written non-null first.
 * @param {unknown} type
 * @returns {unknown}
 */
function orderTypeArray(type) {
  if (!Array.isArray(type)) return type;
  return [...type.filter((entry) => entry !== 'null'), ...type.filter((entry) => entry === 'null')];
}

/**
 * @param {unknown} type
 * @returns {boolean}
 */
function isUnionType(type) {
  return Array.isArray(type) && type.length > 1 && !(type.length === 2 && type.includes('null'));
}

/**
 * Converts one draft-07 schema node (and its children) to 2020-12.
 * @param {unknown} node
 * @param {string} path where the node is, for error messages
 * @returns {unknown}
 */
function convertNode(node, path) {
  if (typeof node === 'boolean') return node;
  if (!isSchemaObject(node)) throw new Error(`${path}: a schema must be an object or a boolean`);
  for (const key of Object.keys(node)) {
    if (!KNOWN_KEYWORDS.has(key)) throw new Error(`${path}: unsupported keyword ${key}`);
  }
  /** @type {SchemaObject} */
  const converted = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case '$ref':
        if (typeof value !== 'string') throw new Error(`${path}: $ref must be a string`);
        converted.$ref = convertReference(value);
        break;
      case 'asType':
        break;
      case 'description':
        // JSDoc is wrapped at the source's line width; unwrap it, keeping paragraph breaks.
        if (typeof value !== 'string') throw new Error(`${path}: description must be a string`);
        converted.description = value.replace(/([^\n])\n(?!\n)/g, '$1 ');
        break;
      case 'properties': {
        if (!isSchemaObject(value)) throw new Error(`${path}: properties must be an object`);
        /** @type {SchemaObject} */
        const properties = {};
        for (const [name, child] of Object.entries(value)) {
          properties[name] = convertNode(child, `${path}/properties/${name}`);
        }
        converted.properties = properties;
        break;
      }
      case 'items':
        if (Array.isArray(value)) {
          converted.prefixItems = value.map((child, index) => convertNode(child, `${path}/items/${index}`));
          if (!('additionalItems' in node)) converted.items = false;
        } else {
          converted.items = convertNode(value, `${path}/items`);
        }
        break;
      case 'additionalItems':
        if (!Array.isArray(node.items)) throw new Error(`${path}: additionalItems without tuple items`);
        converted.items = convertNode(value, `${path}/additionalItems`);
        break;
      case 'additionalProperties':
        converted.additionalProperties = convertNode(value, `${path}/additionalProperties`);
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf': {
        if (!Array.isArray(value)) throw new Error(`${path}: ${key} must be an array`);
        /** @type {unknown[]} */
        const members = [];
        value.forEach((child, index) => {
          // A member that is nothing but a multi-type union splits into one member per type.
          if (
            key === 'anyOf' &&
            isSchemaObject(child) &&
            Object.keys(child).length === 1 &&
            isUnionType(child.type) &&
            Array.isArray(child.type)
          ) {
            for (const type of child.type) members.push({ type });
            return;
          }
          members.push(convertNode(child, `${path}/${key}/${index}`));
        });
        converted[key] = members;
        break;
      }
      case 'type': {
        if (isUnionType(value)) throw new Error(`${path}: union type ${JSON.stringify(value)} needs anyOf`);
        const asType = node.asType;
        if (asType === undefined) {
          converted.type = orderTypeArray(value);
        } else if (asType === 'integer') {
          const types = Array.isArray(value) ? value : [value];
          if (!types.includes('number')) throw new Error(`${path}: @asType integer on a non-number`);
          converted.type = orderTypeArray(
            Array.isArray(value) ? types.map((type) => (type === 'number' ? 'integer' : type)) : 'integer',
          );
        } else {
          throw new Error(`${path}: unsupported @asType ${String(asType)}`);
        }
        break;
      }
      default:
        converted[key] = value;
    }
  }
  if (node.asType !== undefined && node.type === undefined) {
    throw new Error(`${path}: @asType without a type`);
  }
  if (
    converted.type === 'object' &&
    converted.properties !== undefined &&
    converted.additionalProperties === undefined
  ) {
    throw new Error(`${path}: object with properties but no additionalProperties`);
  }
  if (converted.properties !== undefined && converted.type !== 'object') {
    throw new Error(`${path}: properties without type object`);
  }
  return orderKeys(converted);
}

/**
 * Converts one typescript-json-schema document into the committed 2020-12 document.
 * @param {string} name the schema file name without `.json`
 * @param {string} typeName the TypeScript type it was generated from
 * @param {SchemaObject} draft07 typescript-json-schema output
 * @returns {SchemaObject}
 */
export function convertToDraft2020(name, typeName, draft07) {
  const { $schema: _dialect, definitions, ...rootSchema } = draft07;
  const root = /** @type {SchemaObject} */ (convertNode({ title: typeName, ...rootSchema }, `${name}#`));
  /** @type {SchemaObject} */
  const defs = {};
  if (definitions !== undefined) {
    if (!isSchemaObject(definitions)) throw new Error(`${name}: definitions must be an object`);
    for (const definitionName of Object.keys(definitions).sort()) {
      if (!DEFINITION_NAME.test(definitionName)) {
        throw new Error(`${name}: unexpected definition name ${definitionName}`);
      }
      defs[definitionName] = convertNode(definitions[definitionName], `${name}#/$defs/${definitionName}`);
    }
  }
  /** @type {SchemaObject} */
  const document = { $schema: SCHEMA_DIALECT, $id: `${SCHEMA_ID_BASE}${name}.json`, ...root };
  if (Object.keys(defs).length > 0) document.$defs = defs;
  return orderKeys(document);
}

/**
 * Generates every schema named in `SCHEMA_NAMES`, in that order, from one shared program.
 * @returns {GeneratedSchema[]}
 */
export function generateSchemas() {
  const entryFile = join(SOURCE_DIR, 'index.ts');
  // Bundler resolution keeps typescript-json-schema's definition names free of absolute paths.
  const program = TJS.getProgramFromFiles([entryFile], {
    strict: true,
    skipLibCheck: true,
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    types: [],
  });
  const generator = TJS.buildGenerator(program, {
    ref: true,
    aliasRef: false,
    topRef: false,
    required: true,
    noExtraProps: true,
    strictNullChecks: true,
    constAsEnum: false,
    validationKeywords: ['asType', 'propertyNames'],
  });
  if (generator === null) throw new Error('typescript-json-schema could not compile src/index.ts');
  return readSchemaNames().map((name) => {
    const typeName = typeNameForSchema(name);
    const draft07 = /** @type {SchemaObject} */ (generator.getSchemaForSymbol(typeName));
    const schema = convertToDraft2020(name, typeName, draft07);
    return { name, typeName, schema, text: `${JSON.stringify(schema, null, 2)}\n` };
  });
}

/**
 * The committed text of one schema file, or `undefined` when it does not exist.
 * @param {string} name
 * @returns {string | undefined}
 */
export function readCommittedSchema(name) {
  try {
    return readFileSync(join(SCHEMAS_DIR, `${name}.json`), 'utf8');
  } catch (error) {
    if (isSchemaObject(error) && error.code === 'ENOENT') return undefined;
    throw error;
  }
}
