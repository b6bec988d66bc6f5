import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDeclaredFields, type DeclaredFields } from './create-declared-fields.js';
import {
  ANY_TYPE_KEYWORDS,
  KEYWORDS_BY_TYPE,
  MAX_INSPECTED_SCHEMA_DEPTH,
  MAX_UNIQUE_ITEMS,
  inspectInputSchema,
  uniqueItemsProblem,
} from './inspect-input-schema.js';
import { compileSchema } from './pinned-ajv.js';
import { parseUntrustedJson } from './parse-untrusted-json.js';

// The registry's cases (each open form refused by the registry too, every shared tool contract
// accepted, the reviews' reproductions) stay in @toolseal/result's inspect-schema.test.ts; these
// test the walk itself, which the proposal validator shares.

/** What the model puts where a schema leaves a value open (the review's reproduction). */
const SMUGGLED = { approved: true, tenant_id: 'other', role: 'admin' };
/** A closed string subschema. */
const TEXT = { type: 'string', maxLength: 8 };
/** An exact object no generated sample matches (no sample has `kind`): an `if` of it always fails. */
const NEVER_MATCHED = { type: 'object', additionalProperties: false, required: ['kind'], properties: { kind: { const: '__never__' } } };

/** An exact root object with one argument `filter`, plus root-level extras such as `$defs`. */
function withFilter(filter: unknown, root: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, properties: { filter }, ...root };
}

describe('inspectInputSchema', () => {
  it('refuses an open object, naming where and why', () => {
    expect(inspectInputSchema({ type: 'object', properties: { q: TEXT } }).problems).toEqual([
      'input_schema: an object (a subschema with "type": "object" or an object keyword) needs "additionalProperties": false (or "unevaluatedProperties": false)',
    ]);
    expect(inspectInputSchema(withFilter({ type: 'object', properties: { status: TEXT } })).problems).toEqual([
      'input_schema/properties/filter: an object (a subschema with "type": "object" or an object keyword) needs "additionalProperties": false (or "unevaluatedProperties": false)',
    ]);
    // The review's proposal contract: open, so a ready proposal could carry the smuggled keys.
    const open = { type: 'object', required: ['amount'], properties: { amount: { type: 'integer' } } };
    expect(compileSchema(open)({ amount: 5, ...SMUGGLED })).toBe(true);
    expect(inspectInputSchema(open).problems).not.toEqual([]);
  });

  it("the review: a key named after an Object.prototype member, which Ajv's run-time unevaluatedProperties reads as evaluated, is refused by the guard", () => {
    // Closed by unevaluatedProperties alone, beside an anyOf whose one branch has properties and the
    // other passes without closing the object (an implication written without if/then): Ajv
    // tracks evaluated keys in a plain object at run time, where `props.toString` is inherited.
    const schema = {
      type: 'object',
      unevaluatedProperties: false,
      required: ['order_id'],
      properties: { order_id: { type: 'string', maxLength: 64 } },
      anyOf: [{ properties: { order_id: { type: 'string' }, note: { type: 'string' } }, unevaluatedProperties: false }, { not: { const: null } }],
    };
    expect(inspectInputSchema(schema).problems).toEqual([]);
    const validate = compileSchema(schema);
    expect(validate({ order_id: 'A', approved: true })).toBe(false);
    for (const key of ['toString', 'valueOf', 'hasOwnProperty', '__lookupGetter__']) {
      const text = `{"order_id":"A",${JSON.stringify(key)}:{"approved":true}}`;
      // What Ajv alone would accept: the guard refuses it before Ajv runs.
      expect(validate(JSON.parse(text)), key).toBe(true);
      expect(parseUntrustedJson(text), key).toEqual({ ok: false, violation: { rule: 'forbidden_key', path: '' } });
    }
  });

  it('refuses a schema declaring a property no value may hold (a name of Object.prototype)', () => {
    const schema = { type: 'object', additionalProperties: false, properties: { id: TEXT, nested: { type: 'object', additionalProperties: false, properties: { valueOf: TEXT } } } };
    expect(inspectInputSchema(schema).problems).toEqual([
      'input_schema/properties/nested: property "valueOf" is a key the guard refuses in every value (FORBIDDEN_KEYS: it names a member of Object.prototype), so no value could hold it',
    ]);
  });

  it('accepts an object with additionalProperties: false, and collects the pointers reached through properties only', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['order_id'],
      properties: {
        order_id: TEXT,
        filter: { type: 'object', additionalProperties: false, properties: { status: { enum: ['paid', 'pending'] } } },
        lines: { type: 'array', maxItems: 4, items: { type: 'object', additionalProperties: false, properties: { sku: TEXT } } },
      },
    };
    const { problems, scalarPaths } = inspectInputSchema(schema);
    expect(problems).toEqual([]);
    expect([...scalarPaths]).toEqual(['/order_id', '/filter', '/filter/status', '/lines']);
    expect(compileSchema(schema)({ order_id: 'x', ...SMUGGLED })).toBe(false);
  });

  it('accepts a $ref to a root definition, and refuses one to anything else', () => {
    expect(inspectInputSchema(withFilter({ $ref: '#/$defs/state' }, { $defs: { state: { type: 'string', enum: ['open', 'closed'] } } })).problems).toEqual([]);
    expect(inspectInputSchema(withFilter({ $ref: '#/definitions/text' }, { definitions: { text: TEXT } })).problems).toEqual([]);
    expect(inspectInputSchema(withFilter({ $ref: '#/$defs/missing' }, { $defs: {} })).problems).toContain(
      'input_schema/properties/filter: "$ref" "#/$defs/missing" names no definition of the root',
    );
    expect(inspectInputSchema(withFilter({ $ref: '#/examples/0' }, { examples: [TEXT] })).problems).toContain(
      'input_schema/properties/filter: "$ref" must name "#/$defs/<name>" or "#/definitions/<name>" (a plain name of [A-Za-z0-9_.-]): the walk checks only those targets',
    );
    // A definition is walked like any subschema: an open object there is refused.
    expect(inspectInputSchema(withFilter({ $ref: '#/$defs/f' }, { $defs: { f: { type: 'object', properties: {} } } })).problems).toEqual([
      'input_schema/$defs/f: an object (a subschema with "type": "object" or an object keyword) needs "additionalProperties": false (or "unevaluatedProperties": false)',
    ]);
  });

  it('refuses if (and then, else) wherever it sits', () => {
    const problems = inspectInputSchema({ ...withFilter(TEXT), if: NEVER_MATCHED, then: false }).problems;
    expect(problems).toEqual([
      'input_schema: keyword "if" is not allowed in an input schema (the pinned Ajv counts the keys and items an "if" evaluated as evaluated even when the "if" fails, so an "unevaluatedProperties": false or "unevaluatedItems": false beside or above it rejects nothing; write a "oneOf" of exact objects, one per case, to vary the fields)',
      'input_schema: keyword "then" is not allowed in an input schema (allowed only with "if", which is refused: write a "oneOf" of exact objects, one per case, to vary the fields)',
    ]);
    expect(inspectInputSchema(withFilter({ ...TEXT, if: { maxLength: 1 }, else: false })).problems).toHaveLength(2);
  });

  it('names the root with rootName (input_schema by default)', () => {
    const open = withFilter({});
    expect(inspectInputSchema(open).problems).toEqual([
      'input_schema/properties/filter: a subschema must constrain its type: declare "type", "const" or "enum", or be a "$ref" to "#/$defs/<name>", or an "allOf", "anyOf" or "oneOf" whose every subschema does',
    ]);
    expect(inspectInputSchema(open, 'schema').problems).toEqual([
      'schema/properties/filter: a subschema must constrain its type: declare "type", "const" or "enum", or be a "$ref" to "#/$defs/<name>", or an "allOf", "anyOf" or "oneOf" whose every subschema does',
    ]);
    expect(inspectInputSchema({ type: 'object', properties: {}, if: true }, 'schema').problems).toEqual([
      'schema: keyword "if" is not allowed in an input schema (the pinned Ajv counts the keys and items an "if" evaluated as evaluated even when the "if" fails, so an "unevaluatedProperties": false or "unevaluatedItems": false beside or above it rejects nothing; write a "oneOf" of exact objects, one per case, to vary the fields)',
      'schema: an object (a subschema with "type": "object" or an object keyword) needs "additionalProperties": false (or "unevaluatedProperties": false)',
    ]);
    for (const notAnObject of [null, true, [], 'schema']) {
      expect(inspectInputSchema(notAnObject).problems).toEqual(['input_schema must be an object']);
      expect(inspectInputSchema(notAnObject, 'schema').problems).toEqual(['schema must be an object']);
    }
  });

  it('bounds nesting at MAX_INSPECTED_SCHEMA_DEPTH', () => {
    let deep: Record<string, unknown> = TEXT;
    for (let level = 0; level <= MAX_INSPECTED_SCHEMA_DEPTH; level++) deep = { type: 'array', maxItems: 1, items: deep };
    const problems = inspectInputSchema(withFilter(deep)).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^input_schema\/properties\/filter(\/items)+: nested deeper than 32$/);
  });
});

describe('the helpers shared with the output-schema inspection', () => {
  it('uniqueItemsProblem bounds non-scalar unique items at MAX_UNIQUE_ITEMS', () => {
    const objects = { type: 'object', additionalProperties: false, properties: {} };
    expect(uniqueItemsProblem({ type: 'array', uniqueItems: true, maxItems: MAX_UNIQUE_ITEMS, items: objects }, 'x')).toBeNull();
    expect(uniqueItemsProblem({ type: 'array', uniqueItems: true, maxItems: 4_096, items: { type: ['integer', 'null'] } }, 'x')).toBeNull();
    expect(uniqueItemsProblem({ type: 'array', uniqueItems: true, maxItems: MAX_UNIQUE_ITEMS + 1, items: objects }, 'output_schema/properties/lines')).toBe(
      'output_schema/properties/lines: "uniqueItems" over items not declared with a scalar "type" (objects, arrays, or items given by "$ref", "enum" or "const" alone) needs "maxItems" of at most 256 (they are compared pair by pair), or "items" with a scalar "type"',
    );
  });

  it('the keyword tables are frozen', () => {
    expect(Object.isFrozen(ANY_TYPE_KEYWORDS)).toBe(true);
    expect(Object.isFrozen(KEYWORDS_BY_TYPE)).toBe(true);
    for (const keywords of Object.values(KEYWORDS_BY_TYPE)) expect(Object.isFrozen(keywords)).toBe(true);
    expect(Object.keys(KEYWORDS_BY_TYPE).sort()).toEqual(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
  });
});

/** A generated input schema and an instance built alongside it (valid when the grammar is right). */
interface Generated {
  schema: unknown;
  sample: unknown;
}

/** Root-level extras of every generated schema: definitions, and an `examples` entry a `$ref` may point into. */
const ROOT_EXTRAS = { $defs: { text: TEXT, anything: {}, never: NEVER_MATCHED }, definitions: { text: TEXT }, examples: [{ type: 'object' }] };
const CLOSED_LEAVES: Generated[] = [
  { schema: TEXT, sample: 'x' },
  { schema: { type: 'integer' }, sample: 3 },
  { schema: { const: 'fixed' }, sample: 'fixed' },
  { schema: { enum: [1, 2] }, sample: 1 },
  { schema: { $ref: '#/$defs/text' }, sample: 'x' },
  { schema: { $ref: '#/definitions/text' }, sample: 'x' },
];
/** Open leaves: each accepts the smuggled object (or an array of it). */
const OPEN_LEAVES: Generated[] = [
  { schema: {}, sample: SMUGGLED },
  { schema: true, sample: SMUGGLED },
  { schema: { description: 'anything' }, sample: SMUGGLED },
  { schema: { not: { type: 'string' } }, sample: SMUGGLED },
  { schema: { $ref: '#/$defs/anything' }, sample: SMUGGLED },
  { schema: { $ref: '#/examples/0' }, sample: SMUGGLED },
  { schema: { type: 'array' }, sample: [SMUGGLED] },
];

/** The keywords that close (or fail to close) a generated object, and the member a valid sample may then carry. */
interface Closure {
  keywords: Record<string, unknown>;
  extra?: [name: string, value: unknown];
}
const EXACT_CLOSURES: Closure[] = [{ keywords: { additionalProperties: false } }, { keywords: { unevaluatedProperties: false } }];
/** Each lets `extra` through Ajv (when the rest of the sample fits): the registry must refuse it. */
const OPEN_CLOSURES: Closure[] = [
  { keywords: {}, extra: ['approved', true] },
  { keywords: { additionalProperties: TEXT }, extra: ['tenant_id', 'other'] },
  { keywords: { additionalProperties: TEXT, unevaluatedProperties: false }, extra: ['tenant_id', 'other'] },
  { keywords: { additionalProperties: { type: 'integer' }, propertyNames: { maxLength: 16 }, maxProperties: 8 }, extra: ['tenant_id', 1] },
  { keywords: { unevaluatedProperties: TEXT }, extra: ['tenant_id', 'other'] },
  { keywords: { unevaluatedProperties: false, allOf: [{ additionalProperties: TEXT }] }, extra: ['tenant_id', 'other'] },
  { keywords: { unevaluatedProperties: false, if: { minProperties: 1 }, then: { additionalProperties: TEXT } }, extra: ['tenant_id', 'other'] },
  { keywords: { unevaluatedProperties: false, dependentSchemas: { tenant_id: { additionalProperties: TEXT } } }, extra: ['tenant_id', 'other'] },
  { keywords: { unevaluatedProperties: false, dependencies: { tenant_id: { properties: { tenant_id: {} } } } }, extra: ['tenant_id', SMUGGLED] },
  { keywords: { additionalProperties: false, patternProperties: { '^tenant_': TEXT } }, extra: ['tenant_id', 'other'] },
  // An `if` no sample matches: the pinned Ajv still counts the keys it evaluated.
  { keywords: { unevaluatedProperties: false, if: NEVER_MATCHED, then: false }, extra: ['tenant_id', 'other'] },
  { keywords: { unevaluatedProperties: false, if: { $ref: '#/$defs/never' }, then: false }, extra: ['approved', true] },
];
/**
 * Arrays closed by `unevaluatedItems: false` only, whose items something the pinned Ajv counts as
 * evaluated without checking them: an `if` of `items` that fails on an object item, or a
 * `contains` another item matches. Each holds a generated sample, which no subschema checks.
 */
const OPEN_ARRAYS: ((sample: unknown) => Generated)[] = [
  (sample) => ({ schema: { type: 'array', maxItems: 4, unevaluatedItems: false, if: { items: TEXT }, then: false }, sample: [sample] }),
  (sample) => ({ schema: { type: 'array', maxItems: 4, unevaluatedItems: false, contains: { const: 'fixed' } }, sample: ['fixed', sample] }),
];

function schemaArbitrary(withOpenForms: boolean): fc.Arbitrary<Generated> {
  const leaves = withOpenForms ? [...CLOSED_LEAVES, ...OPEN_LEAVES] : CLOSED_LEAVES;
  return fc.letrec<{ node: Generated; object: Generated }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...leaves),
      tie('object'),
      tie('node').map(({ schema, sample }) => ({ schema: { type: 'array', maxItems: 4, items: schema }, sample: [sample] })),
      fc.tuple(tie('node'), tie('node')).map(([first, second]) => ({ schema: { anyOf: [first.schema, second.schema] }, sample: first.sample })),
      ...(withOpenForms ? [fc.tuple(fc.constantFrom(...OPEN_ARRAYS), tie('node')).map(([open, child]) => open(child.sample))] : []),
    ),
    object: fc
      .tuple(
        fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }),
        fc.constantFrom(...(withOpenForms ? [...EXACT_CLOSURES, ...OPEN_CLOSURES] : EXACT_CLOSURES)),
      )
      .map(([properties, closure]) => {
        const schema: Record<string, unknown> = {
          type: 'object',
          properties: Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, child.schema])),
          ...closure.keywords,
        };
        const sample: Record<string, unknown> = Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, child.sample]));
        if (closure.extra !== undefined) sample[closure.extra[0]] = closure.extra[1];
        return { schema, sample };
      }),
  })).object.map(({ schema, sample }) => ({ schema: { ...(schema as object), ...ROOT_EXTRAS }, sample }));
}

/** Pointers of every object member in `value` that `fields` does not declare. */
function undeclaredMembers(value: unknown, fields: DeclaredFields, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => undeclaredMembers(item, fields, `${at}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) => {
    const pointer = `${at}/${key}`;
    return fields.declares(pointer) ? undeclaredMembers(member, fields, pointer) : [pointer];
  });
}

describe('inspectInputSchema (property)', () => {
  it('never accepts a schema under which valid arguments carry a member the schema does not declare', () => {
    let smuggledPastAjv = 0;
    let acceptedAndValid = 0;
    fc.assert(
      fc.property(schemaArbitrary(true), ({ schema, sample }) => {
        let validate: ReturnType<typeof compileSchema>;
        try {
          validate = compileSchema(schema as object);
        } catch {
          return; // the registry refuses what the pinned Ajv refuses
        }
        if (!validate(sample)) return;
        const undeclared = undeclaredMembers(sample, createDeclaredFields(schema));
        const { problems } = inspectInputSchema(schema);
        if (undeclared.length > 0) {
          smuggledPastAjv++;
          expect(problems, JSON.stringify({ schema, undeclared })).not.toEqual([]);
        } else if (problems.length === 0) {
          acceptedAndValid++;
        }
      }),
      { numRuns: 400 },
    );
    // Neither side of the property is vacuous.
    expect(smuggledPastAjv).toBeGreaterThan(0);
    expect(acceptedAndValid).toBeGreaterThan(0);
  });

  it('accepts every schema built from closed forms only', () => {
    fc.assert(
      fc.property(schemaArbitrary(false), ({ schema }) => {
        expect(inspectInputSchema(schema).problems).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
