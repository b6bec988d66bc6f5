import { beginPatternScope, compilePattern, endPatternScope } from './compile-pattern.js';
import { CONTRACT_BASE_ID, MAX_SCHEMA_NESTING } from './create-ref-resolver.js';
import { findStalledRefCycle } from './find-stalled-ref-cycle.js';
import { beginWorkScope, endWorkScope, instrumentSchema, WORK_KEYWORD, WORK_KEYWORD_DEFINITION, type SchemaWork, type WorkScope } from './validation-budget.js';
import { UNIQUE_ITEMS_KEYWORD } from './unique-items-keyword.js';
import { refuseUnknownNames } from './refuse-unknown-names.js';
import { subschemasOf } from './subschemas.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { CodeOptions, ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { FormatsPlugin } from 'ajv-formats';

/** The `format`s a contract may use. Any other format fails schema compilation in strict mode. */
export const PINNED_FORMATS = Object.freeze(['date-time', 'uri', 'email', 'uuid'] as const);

/** One of `PINNED_FORMATS`. */
export type PinnedFormat = (typeof PINNED_FORMATS)[number];

// ajv-formats is CommonJS: under NodeNext its default import is `module.exports`, which is the
// plugin itself at run time while its types describe a namespace with a `default`.
const addFormats: FormatsPlugin =
  (formatsPlugin as unknown as { default?: FormatsPlugin }).default ?? (formatsPlugin as unknown as FormatsPlugin);

/**
 * Ajv's engine for `pattern` and `patternProperties`: `compilePattern`, linear-time, instead of the
 * backtracking native `RegExp` (a contract's `^(a+)+$` would let a model's 30-character string
 * block the event loop). Ajv calls it once per pattern while compiling a schema, so a pattern it
 * refuses makes the compile throw. `code` names it only for standalone code, which toolseal never
 * generates.
 */
const LINEAR_REG_EXP: NonNullable<CodeOptions['regExp']> = Object.assign(
  (pattern: string, flags: string) => {
    if (flags !== 'u') throw new TypeError(`createPinnedAjv: patterns are compiled in Unicode mode only, not with flags ${JSON.stringify(flags)}`);
    return compilePattern(pattern);
  },
  { code: 'require("@toolseal/guard").compilePattern' },
);

/** The members of `createPinnedAjv`'s options: any other is refused. */
const PINNED_AJV_OPTION_NAMES: readonly string[] = Object.freeze(['formats']);

/**
 * The one Ajv configuration toolseal validates with: JSON Schema 2020-12, `strict` (unknown
 * keywords, formats and ambiguous types fail at compile time), `ownProperties` (inherited
 * properties are never data), the first error only, Unicode regular expressions matched in linear
 * time (`compilePattern`: a pattern it refuses fails compilation), and never any coercion,
 * defaults or property removal: validation never changes the value it checks. Formats come from
 * ajv-formats, limited to `formats` (default: all of `PINNED_FORMATS`). Options that are not an
 * object, or hold a member other than `formats` (`{ format: ['uuid'] }` would allow every pinned
 * format), throw a `TypeError` naming it; so does a format that is not pinned.
 */
export function createPinnedAjv(options: { formats?: readonly PinnedFormat[] } = {}): Ajv2020 {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`createPinnedAjv: options must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  refuseUnknownNames(options, PINNED_AJV_OPTION_NAMES, 'createPinnedAjv');
  return newPinnedAjv(options.formats ?? PINNED_FORMATS, true, false);
}

/**
 * The pinned Ajv; with `countsWork`, it knows the keyword `instrumentSchema` puts in every
 * subschema, which spends the work of each application from the budget of the validation running
 * (`compileSchema` gives each validation one: `ValidationBudgetExceeded`).
 */
function newPinnedAjv(formats: readonly PinnedFormat[], validateSchema: boolean, countsWork: boolean): Ajv2020 {
  for (const format of formats) {
    if (!PINNED_FORMATS.includes(format)) throw new TypeError(`createPinnedAjv: format ${format} is not pinned`);
  }
  const ajv = new Ajv2020({
    strict: true,
    ownProperties: true,
    allErrors: false,
    unicodeRegExp: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    validateFormats: true,
    validateSchema,
    addUsedSchema: false,
    code: { regExp: LINEAR_REG_EXP },
  });
  addFormats(ajv, { mode: 'full', formats: [...formats] });
  // Ajv's own keeps the scalar items it has seen as keys of a plain object, where "__proto__" is
  // never seen twice (see `UNIQUE_ITEMS_KEYWORD`).
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(UNIQUE_ITEMS_KEYWORD);
  if (countsWork) ajv.addKeyword(WORK_KEYWORD_DEFINITION);
  return ajv;
}

const compiled = new WeakMap<object, ValidateFunction<unknown>>();
// Checks schemas against the 2020-12 meta-schema for every compileSchema call: compiling the
// meta-schema once here instead of in each per-schema instance makes a compile about 6x cheaper.
// Validating a schema registers nothing, so no `$id` lands in this instance.
let metaSchemaChecker: Ajv2020 | undefined;

/**
 * Compiles `schema` with the pinned configuration, once: the validator is cached by the schema
 * object's identity, so call it at start-up and keep the schema object unchanged afterwards.
 * Throws when the schema is not a valid 2020-12 schema, strict mode rejects it, a `pattern` is one
 * `compilePattern` refuses (backreferences, lookaround, `\b`, `\p{...}`, too long or too large), or
 * a `$ref` cycle can recurse without moving into the value (`findStalledRefCycle`), or its
 * validator throws on a few probe values instead of answering (a broken contract must stop the host
 * from starting).
 *
 * Each schema gets its own Ajv instance. A shared instance would register every `$id` globally:
 * two contracts that reuse an `$id` would collide (the second compile throws), and worse, a `$ref`
 * in one contract could resolve to a schema another contract registered. With one instance per
 * schema, `$id`s and `$ref`s resolve only inside the schema that declares them.
 */
export function compileSchema<T>(schema: object): ValidateFunction<T> {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new TypeError('compileSchema: a schema must be an object');
  }
  const cached = compiled.get(schema);
  if (cached !== undefined) return cached as ValidateFunction<T>;
  if ((schema as { $async?: unknown }).$async === true) {
    throw new TypeError('compileSchema: asynchronous schemas are not supported');
  }
  metaSchemaChecker ??= newPinnedAjv(PINNED_FORMATS, true, false);
  if (!metaSchemaChecker.validateSchema(schema)) {
    throw new Error(`compileSchema: invalid schema: ${metaSchemaChecker.errorsText(metaSchemaChecker.errors)}`);
  }
  if (usesKeyword(schema, '$dynamicRef')) {
    throw new TypeError('compileSchema: `$dynamicRef` is not supported in contracts (one that resolves to itself recurses until the stack runs out, for some inputs only)');
  }
  // Ajv registers a `$dynamicAnchor` as a plain anchor too, which a `$ref: '#name'` reaches where
  // the start-up cycle check does not follow it (`$anchor` is unknown to the pinned strict mode).
  if (usesKeyword(schema, '$dynamicAnchor')) {
    throw new TypeError('compileSchema: `$dynamicAnchor` is not supported in contracts (write a "$ref" to "#/$defs/<name>")');
  }
  if (usesKeyword(schema, WORK_KEYWORD)) {
    throw new TypeError(`compileSchema: ${JSON.stringify(WORK_KEYWORD)} is the keyword toolseal counts validation work with, not one a contract may use`);
  }
  const stalled = findStalledRefCycle(schema);
  if (stalled?.unresolved !== undefined) {
    throw new TypeError(`compileSchema: can't resolve reference ${JSON.stringify(stalled.unresolved)} at #${stalled.where} to a subschema of the schema`);
  }
  if (stalled !== null) {
    throw new TypeError(
      stalled.tooDeep
        ? `compileSchema: subschemas applied to the same value chain deeper than ${MAX_SCHEMA_NESTING} at #${stalled.where}`
        : `compileSchema: a "$ref" cycle returns to a subschema at #${stalled.where} without moving into the value (through "properties", "items", "prefixItems", "additionalProperties", "contains"...): its validator would recurse until the stack runs out, for some inputs`,
    );
  }
  // Without a base URI of its own a schema's `$ref: '#'` (a recursive contract) does not resolve
  // here (each schema has its own instance, which registers nothing): one without `$id` is compiled
  // under `CONTRACT_BASE_ID`, which changes nothing else (a relative `$ref` to another document
  // resolves nowhere either way).
  const rooted = Object.hasOwn(schema, '$id') ? schema : { $id: CONTRACT_BASE_ID, ...schema };
  // A schema with a `$ref` gets a work budget per validation, in proportion to its subschemas and
  // the value's size: through `$ref`s, combinators can apply subschemas to the same values again
  // and again, multiplying the work with each level of nesting (`ValidationBudgetExceeded`).
  // Without one, no subschema applies to a place more than once, and nothing is counted.
  const instrumented = usesKeyword(schema, '$ref') ? instrumentSchema(rooted as Record<string, unknown>) : null;
  const validate = withOneBudget(
    newPinnedAjv(PINNED_FORMATS, false, instrumented !== null).compile<T>(instrumented?.schema ?? rooted),
    instrumented?.work ?? null,
  );
  // A validator that throws (a `$dynamicRef` that resolves to itself recurses until the stack runs
  // out) would turn a check of untrusted data into an exception: refused here, at start-up, on a
  // few values it must simply answer for.
  for (const probe of SCHEMA_PROBES) {
    try {
      validate(probe);
    } catch (error) {
      throw new TypeError(`compileSchema: the schema's validator throws instead of answering (${String(error)})`, { cause: error });
    }
  }
  compiled.set(schema, validate as ValidateFunction<unknown>);
  return validate;
}

export { CONTRACT_BASE_ID };

/**
 * `validate`, each call of which is one pattern scope (`beginPatternScope`): all the `pattern`
 * tests of one validated value share one budget, whatever the number of strings in it; for an
 * instrumented schema (`work`), its work budgets too (`beginWorkScope`). `errors`
 * and the other members read through to Ajv's function.
 */
function withOneBudget<T>(validate: ValidateFunction<T>, work: SchemaWork | null): ValidateFunction<T> {
  const scoped = function (this: unknown, data: unknown, context?: Parameters<ValidateFunction<T>>[1]): boolean {
    beginPatternScope();
    let outer: WorkScope | null = null;
    try {
      // Inside the `try`: reading the value to size it may throw (a getter), and the pattern
      // scope must end all the same, or every later validation of the process would share it.
      if (work !== null) outer = beginWorkScope(data, work);
      return validate.call(this, data, context);
    } finally {
      if (outer !== null) endWorkScope(outer);
      endPatternScope();
    }
  } as ValidateFunction<T>;
  for (const member of ['errors', 'schema', 'schemaEnv', 'evaluated', 'source'] as const) {
    Object.defineProperty(scoped, member, {
      get: () => validate[member],
      set: (value: unknown) => {
        (validate as unknown as Record<string, unknown>)[member] = value;
      },
      enumerable: true,
    });
  }
  return scoped;
}

/** Whether `keyword` appears in any subschema of `schema` (never in a property name or a value). */
function usesKeyword(schema: unknown, keyword: string): boolean {
  const stack: unknown[] = [schema];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || Array.isArray(node) || seen.has(node)) continue;
    seen.add(node);
    const record = node as Record<string, unknown>;
    if (Object.hasOwn(record, keyword)) return true;
    stack.push(...subschemasOf(record));
  }
  return false;
}

/** Values every validator must answer for without throwing (see `compileSchema`). */
const SCHEMA_PROBES: readonly unknown[] = [{}, [], null, '', 0, true, { a: [{}] }];
