import { compileSchema } from '@toolseal/guard';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copy, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { createInputFieldTemplates, type InputFieldTemplates } from './input-field-templates.js';
import { inspectInputSchema, inspectOutputSchema } from './inspect-schema.js';
import { RegistryError } from './registry-error.js';
import { createToolRegistry } from './tool-registry.js';
import type { ToolSpec } from './tool-spec.js';

const specs = loadToolSpecs();

/** What the model puts where a schema leaves a value open (the review's reproduction). */
const SMUGGLED = { approved: true, tenant_id: 'other', role: 'admin' };
/** A closed string subschema. */
const TEXT = { type: 'string', maxLength: 8 };

/** An exact root object with one argument `filter`, plus root-level extras such as `$defs`. */
function withFilter(filter: unknown, root: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, properties: { filter }, ...root };
}

function specWithInput(input_schema: object): ToolSpec {
  const spec = copy(specs.kbSearch);
  spec.input_schema = input_schema;
  return spec;
}

function registryErrorOf(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    expect(RegistryError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a RegistryError');
}

/**
 * Input subschemas that leave a value open, each with where the problem must be reported and, where
 * the pinned Ajv compiles the schema, arguments that smuggle keys past it (proof the hole is real).
 */
const OPEN_INPUTS: [label: string, schema: Record<string, unknown>, where: RegExp, smuggled?: unknown][] = [
  ['an empty schema {}', withFilter({}), /input_schema\/properties\/filter: .*constrain its type/, { filter: SMUGGLED }],
  ['a boolean true schema', withFilter(true), /input_schema\/properties\/filter: a boolean true subschema/, { filter: SMUGGLED }],
  ['annotations only', withFilter({ description: 'any filter' }), /properties\/filter: .*constrain its type/, { filter: SMUGGLED }],
  ['a negation only', withFilter({ not: { type: 'string' } }), /properties\/filter: .*constrain its type/, { filter: SMUGGLED }],
  ['anyOf with an open branch', withFilter({ anyOf: [{ type: 'string', maxLength: 8 }, {}] }), /properties\/filter: .*constrain its type/, { filter: SMUGGLED }],
  ['oneOf with a true branch', withFilter({ oneOf: [{ type: 'integer' }, true] }), /properties\/filter\/oneOf\/1: a boolean true subschema/, { filter: SMUGGLED }],
  ['allOf of annotations', withFilter({ allOf: [{ description: 'mixin' }] }), /properties\/filter: .*constrain its type/, { filter: SMUGGLED }],
  ['a $ref to an open definition', withFilter({ $ref: '#/$defs/anything' }, { $defs: { anything: {} } }), /properties\/filter: .*constrain its type/, { filter: SMUGGLED }],
  ['a $ref that is not local', withFilter({ $ref: 'https://example.com/filter.json' }), /properties\/filter: .*constrain its type/],
  [
    'a $ref cycle that never declares a type',
    withFilter({ $ref: '#/$defs/a' }, { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } }),
    /properties\/filter: .*constrain its type/,
  ],
  ['items: {}', withFilter({ type: 'array', maxItems: 4, items: {} }), /properties\/filter\/items: .*constrain its type/, { filter: [SMUGGLED] }],
  ['items: true', withFilter({ type: 'array', maxItems: 4, items: true }), /properties\/filter\/items: a boolean true subschema/, { filter: [SMUGGLED] }],
  ['an array without items', withFilter({ type: 'array', maxItems: 4 }), /properties\/filter: an array needs "items"/, { filter: [SMUGGLED] }],
  ['prefixItems leaving later items open', withFilter({ type: 'array', prefixItems: [{ type: 'string', maxLength: 8 }] }), /properties\/filter: an array needs "items"/],
  ['an open prefixItems entry', withFilter({ type: 'array', prefixItems: [{}], items: false, minItems: 1 }), /properties\/filter\/prefixItems\/0: .*constrain its type/, { filter: [SMUGGLED] }],
  [
    'an open patternProperties entry',
    { type: 'object', additionalProperties: false, properties: {}, patternProperties: { '^filter$': {} } },
    /input_schema\/patternProperties\/\^filter\$: .*constrain its type/,
    { filter: SMUGGLED },
  ],
  ['an open root', {}, /^input_schema: .*constrain its type/, SMUGGLED],
  ['an untyped root listing properties', { additionalProperties: false, properties: { q: { type: 'string', maxLength: 8 } } }, /^input_schema: .*constrain its type/],
  ['a nested $id (it changes what a $ref names)', withFilter({ $id: 'https://example.com/filter', type: 'string', maxLength: 8 }), /properties\/filter: "\$id" is allowed at the root only/],
  ['true under a narrowing keyword', withFilter({ type: 'array', maxItems: 4, items: { type: 'string', maxLength: 8 }, contains: true }), /properties\/filter\/contains: a boolean true subschema/],
  // The second review: a typed `additionalProperties` marks every key evaluated, so an
  // `unevaluatedProperties: false` beside or above it rejects nothing.
  [
    'a typed additionalProperties beside unevaluatedProperties: false',
    { type: 'object', properties: { q: TEXT }, additionalProperties: TEXT, unevaluatedProperties: false },
    /^input_schema: "additionalProperties" must be false/,
    { q: 'x', tenant_id: 'other' },
  ],
  [
    'a typed additionalProperties in an allOf branch',
    { type: 'object', properties: { q: TEXT }, unevaluatedProperties: false, allOf: [{ additionalProperties: TEXT }] },
    /^input_schema\/allOf\/0: "additionalProperties" must be false/,
    { q: 'x', tenant_id: 'other' },
  ],
  [
    'a typed additionalProperties in then (if: minProperties)',
    { type: 'object', properties: { q: TEXT }, unevaluatedProperties: false, if: { minProperties: 1 }, then: { additionalProperties: TEXT } },
    /^input_schema\/then: "additionalProperties" must be false/,
    { q: 'x', tenant_id: 'other' },
  ],
  [
    'a typed additionalProperties in a dependentSchemas entry',
    { type: 'object', properties: { q: TEXT }, unevaluatedProperties: false, dependentSchemas: { q: { additionalProperties: TEXT } } },
    /^input_schema\/dependentSchemas\/q: "additionalProperties" must be false/,
    { q: 'x', tenant_id: 'other' },
  ],
  [
    'a $ref to a location the walk skips (#/examples/0)',
    withFilter({ $ref: '#/examples/0' }, { examples: [{ type: 'object' }] }),
    /properties\/filter: "\$ref" must name "#\/\$defs\/<name>"/,
    { filter: { approved: true } },
  ],
  [
    'a typed map (propertyNames and maxProperties)',
    withFilter({ type: 'object', maxProperties: 4, propertyNames: { pattern: '^[A-Za-z0-9_]{1,64}$' }, additionalProperties: { type: 'integer' } }),
    /properties\/filter: "additionalProperties" must be false/,
    { filter: { tenant_id: 1 } },
  ],
  [
    'unevaluatedProperties given as a schema',
    { type: 'object', properties: { q: TEXT }, unevaluatedProperties: TEXT },
    /^input_schema: "unevaluatedProperties" must be false/,
    { q: 'x', tenant_id: 'other' },
  ],
  [
    'patternProperties (the names it admits are the model\'s)',
    { type: 'object', additionalProperties: false, properties: { q: TEXT }, patternProperties: { '^t': TEXT } },
    /^input_schema: keyword "patternProperties" is not allowed/,
    { q: 'x', tenant_id: 'other' },
  ],
  [
    'dependencies carrying an open property (the walk never followed it)',
    { type: 'object', properties: { q: TEXT }, unevaluatedProperties: false, dependencies: { q: { properties: { tenant_id: {} } } } },
    /^input_schema: keyword "dependencies" is not allowed/,
    { q: 'x', tenant_id: SMUGGLED },
  ],
  ['a $dynamicRef', { type: 'object', additionalProperties: false, properties: { q: TEXT }, $dynamicRef: '#/$defs/text', $defs: { text: TEXT } }, /^input_schema: keyword "\$dynamicRef" is not allowed/],
  ['a $ref with a JSON Pointer escape', withFilter({ $ref: '#/$defs/a~1b' }, { $defs: { 'a/b': TEXT } }), /properties\/filter: "\$ref" must name/],
  [
    'an object keyword in a branch that is not exact itself',
    { type: 'object', properties: { q: TEXT }, unevaluatedProperties: false, allOf: [{ minProperties: 1 }] },
    /^input_schema\/allOf\/0: an object .*needs "additionalProperties": false/,
  ],
  [
    'an open contains (the items it matches count as evaluated)',
    withFilter({ type: 'array', maxItems: 4, contains: { description: 'any item' }, unevaluatedItems: false }),
    /properties\/filter\/contains: .*constrain its type/,
  ],
];

/** Closed input subschemas a contract legitimately uses: each must still register. */
const CLOSED_INPUTS: [label: string, schema: Record<string, unknown>][] = [
  ['a typed scalar', withFilter({ type: 'string', maxLength: 8 })],
  ['a nullable scalar', withFilter({ type: ['string', 'null'], maxLength: 8 })],
  ['a const, even an object one (the value is fixed)', withFilter({ const: { mode: 'strict' } })],
  ['an enum of mixed values', withFilter({ enum: ['a', 1, null] })],
  ['false (the argument must be absent)', withFilter(false)],
  ['an exact nested object', withFilter({ type: 'object', additionalProperties: false, properties: { state: { type: 'string', enum: ['open', 'closed'] } } })],
  ['a $ref to a typed definition', withFilter({ $ref: '#/$defs/state' }, { $defs: { state: { type: 'string', enum: ['open', 'closed'] } } })],
  [
    'a recursive tree through $ref',
    withFilter(
      { $ref: '#/$defs/node' },
      {
        $defs: {
          node: {
            type: 'object',
            additionalProperties: false,
            properties: { name: { type: 'string', maxLength: 8 }, children: { type: 'array', maxItems: 4, items: { $ref: '#/$defs/node' } } },
          },
        },
      },
    ),
  ],
  ['anyOf of typed branches', withFilter({ anyOf: [{ type: 'string', maxLength: 8 }, { type: 'integer' }] })],
  ['oneOf of const and enum branches', withFilter({ oneOf: [{ const: 'all' }, { enum: [1, 2, 3] }] })],
  ['allOf of a $ref to a typed definition', withFilter({ allOf: [{ $ref: '#/$defs/state' }] }, { $defs: { state: { type: 'string', maxLength: 8 } } })],
  ['a typed node whose anyOf branches only narrow it', withFilter({ type: 'string', maxLength: 16, anyOf: [{ pattern: '^a' }, { pattern: '^b' }] })],
  [
    'a discriminated oneOf of exact objects',
    withFilter({
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['kind'], properties: { kind: { const: 'all' } } },
        { type: 'object', additionalProperties: false, required: ['kind', 'id'], properties: { kind: { const: 'one' }, id: { type: 'integer' } } },
      ],
    }),
  ],
  ['a tuple closed by items: false', withFilter({ type: 'array', prefixItems: [{ type: 'string', maxLength: 8 }, { type: 'integer' }], items: false, minItems: 2 })],
  ['a tuple closed by maxItems', withFilter({ type: 'array', prefixItems: [{ type: 'string', maxLength: 8 }], minItems: 1, maxItems: 1 })],
  ['an object closed by unevaluatedProperties: false', withFilter({ type: 'object', unevaluatedProperties: false, properties: { q: { type: 'string', maxLength: 8 } } })],
  ['$id and $schema at the root', { ...withFilter({ type: 'integer' }), $id: 'https://example.com/tool', $schema: 'https://json-schema.org/draft/2020-12/schema' }],
  ['a $ref to #/definitions/<name>', withFilter({ $ref: '#/definitions/state' }, { definitions: { state: TEXT } })],
  [
    'an exact object with dependentRequired, propertyNames and maxProperties',
    withFilter({ type: 'object', additionalProperties: false, properties: { a: TEXT, b: TEXT }, dependentRequired: { a: ['b'] }, propertyNames: { maxLength: 8 }, maxProperties: 2 }),
  ],
  ['a closed contains', withFilter({ type: 'array', maxItems: 4, items: TEXT, contains: { const: 'x' } })],
  ['a tuple closed by unevaluatedItems: false', withFilter({ type: 'array', prefixItems: [TEXT], minItems: 1, maxItems: 1, unevaluatedItems: false })],
  ['annotations beside a $ref', withFilter({ $ref: '#/$defs/text', description: 'a', default: 'x', examples: ['x'], deprecated: false }, { $defs: { text: TEXT } })],
];

describe('inspectInputSchema: every value subschema constrains its type', () => {
  for (const [label, schema, where, smuggled] of OPEN_INPUTS) {
    it(`refuses ${label}`, () => {
      if (smuggled !== undefined) {
        // Plain validation lets the smuggled keys through: the hole is real, only registration stops it.
        expect(compileSchema(schema)(smuggled)).toBe(true);
      }
      const problems = inspectInputSchema(schema).problems;
      expect(problems.some((problem) => where.test(problem)), problems.join('\n')).toBe(true);
      expect(registryErrorOf(() => createToolRegistry([specWithInput(schema)]))).toMatch(/input_schema is not exact/);
    });
  }

  for (const [label, schema] of CLOSED_INPUTS) {
    it(`accepts ${label}, and the registry compiles it`, () => {
      expect(inspectInputSchema(schema).problems).toEqual([]);
      const tool = createToolRegistry([specWithInput(schema)]).get('kb_search');
      expect(tool?.validateInput({ filter: SMUGGLED })).toBe(false);
    });
  }

  it('accepts every shared tool contract', () => {
    for (const spec of Object.values(specs)) expect(inspectInputSchema(spec.input_schema).problems).toEqual([]);
  });

  it("closes the review's reproduction: {\"filter\":{}} no longer registers, an exact filter refuses smuggled keys", () => {
    expect(registryErrorOf(() => createToolRegistry([specWithInput(withFilter({}))]))).toMatch(
      /input_schema is not exact: input_schema\/properties\/filter: /,
    );
    const exact = withFilter({ type: 'object', additionalProperties: false, properties: { status: { type: 'string', enum: ['paid', 'pending'] } } });
    const tool = createToolRegistry([specWithInput(exact)]).get('kb_search');
    expect(tool?.validateInput({ filter: { status: 'paid' } })).toBe(true);
    expect(tool?.validateInput({ filter: { status: 'paid', ...SMUGGLED } })).toBe(false);
  });
});

describe('inspectOutputSchema: exact output contracts have the same property', () => {
  const withField = (field: unknown): Record<string, unknown> => ({ type: 'object', additionalProperties: false, properties: { field } });
  const open: [string, Record<string, unknown>][] = [
    ['an empty schema {}', withField({})],
    ['a boolean true schema', withField(true)],
    ['annotations only', withField({ description: 'anything' })],
    ['a const without a type', withField({ const: 'x' })],
    ['anyOf of typed branches (no composition at all)', withField({ anyOf: [{ type: 'string', maxLength: 8 }, { type: 'integer' }] })],
    ['items: {}', withField({ type: 'array', maxItems: 4, items: {} })],
    ['items: true', withField({ type: 'array', maxItems: 4, items: true })],
    ['an array without items', withField({ type: 'array', maxItems: 4 })],
  ];
  for (const [label, schema] of open) {
    it(`refuses ${label}`, () => {
      expect(inspectOutputSchema(schema).problems.some((problem) => problem.startsWith('output_schema/properties/field'))).toBe(true);
    });
  }
});

/** A generated input schema and an instance built alongside it (valid when the grammar is right). */
interface Generated {
  schema: unknown;
  sample: unknown;
}

/** Root-level extras of every generated schema: definitions, and an `examples` entry a `$ref` may point into. */
const ROOT_EXTRAS = { $defs: { text: TEXT, anything: {} }, definitions: { text: TEXT }, examples: [{ type: 'object' }] };
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
function undeclaredMembers(value: unknown, fields: InputFieldTemplates, at = ''): string[] {
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
        const undeclared = undeclaredMembers(sample, createInputFieldTemplates(schema));
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
