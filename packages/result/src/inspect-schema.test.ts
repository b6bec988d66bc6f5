import { compileSchema, inspectInputSchema } from '@toolseal/guard';
import { describe, expect, it } from 'vitest';
import { copy, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { MAX_UNIQUE_ITEMS, fieldNameWords, inspectOutputSchema, isLinkFieldName, isMediaFieldName } from './inspect-schema.js';
import { RegistryError } from './registry-error.js';
import { createToolRegistry } from './tool-registry.js';
import type { ToolSpec } from './tool-spec.js';

const specs = loadToolSpecs();

/** What the model puts where a schema leaves a value open (the review's reproduction). */
const SMUGGLED = { approved: true, tenant_id: 'other', role: 'admin' };
/** A closed string subschema. */
const TEXT = { type: 'string', maxLength: 8 };
/** An exact object no generated sample matches (no sample has `kind`): an `if` of it always fails. */
const NEVER_MATCHED = { type: 'object', additionalProperties: false, required: ['kind'], properties: { kind: { const: '__never__' } } };
/** A root with one string `q`, closed by `unevaluatedProperties: false` only, and `extra` beside it. */
function unevaluatedRoot(extra: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', unevaluatedProperties: false, required: ['q'], properties: { q: TEXT }, ...extra };
}

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
  ['true under a narrowing keyword', withFilter({ ...TEXT, not: true }), /properties\/filter\/not: a boolean true subschema/],
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
    /^input_schema: keyword "if" is not allowed/,
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
    'an open contains',
    withFilter({ type: 'array', maxItems: 4, contains: { description: 'any item' }, unevaluatedItems: false }),
    /properties\/filter: keyword "contains" is not allowed/,
  ],
  // The third review: the pinned Ajv merges the keys and items a FAILING `if` evaluated
  // (ajv/lib/vocabularies/applicator/if.ts, `validateIf`), so each `if` below, which never matches,
  // still switches off the `unevaluatedProperties`/`unevaluatedItems: false` beside or above it.
  [
    'a failing if with additionalProperties: false (every key counts as evaluated)',
    unevaluatedRoot({ if: NEVER_MATCHED, then: false }),
    /^input_schema: keyword "if" is not allowed/,
    { q: 'x', ...SMUGGLED },
  ],
  [
    'a failing if with unevaluatedProperties: false',
    unevaluatedRoot({ if: { type: 'object', unevaluatedProperties: false, required: ['kind'], properties: { kind: { const: '__never__' } } }, then: false }),
    /^input_schema: keyword "if" is not allowed/,
    { q: 'x', ...SMUGGLED },
  ],
  [
    'a failing if whose properties name the smuggled keys',
    unevaluatedRoot({
      if: { ...NEVER_MATCHED, properties: { kind: { const: '__never__' }, approved: { type: 'boolean' }, tenant_id: TEXT, role: TEXT } },
      then: false,
    }),
    /^input_schema: keyword "if" is not allowed/,
    { q: 'x', ...SMUGGLED },
  ],
  [
    'a failing if that is a $ref to an exact definition, in a nested object',
    withFilter(
      { type: 'object', unevaluatedProperties: false, properties: { q: TEXT }, if: { $ref: '#/$defs/never' }, then: false },
      { $defs: { never: NEVER_MATCHED } },
    ),
    /properties\/filter: keyword "if" is not allowed/,
    { filter: { q: 'x', ...SMUGGLED } },
  ],
  [
    'a failing if with items beside unevaluatedItems: false (every item counts as evaluated)',
    withFilter({ type: 'array', maxItems: 4, unevaluatedItems: false, if: { items: TEXT }, then: false }),
    /properties\/filter: keyword "if" is not allowed/,
    { filter: [SMUGGLED] },
  ],
  // The pinned Ajv sets every item evaluated once `contains` is there, matched or not
  // (ajv/lib/vocabularies/applicator/contains.ts: `it.items = true`).
  [
    'a closed contains beside unevaluatedItems: false (unmatched items count as evaluated)',
    withFilter({ type: 'array', maxItems: 4, unevaluatedItems: false, contains: { const: 'x' } }),
    /properties\/filter: keyword "contains" is not allowed/,
    { filter: ['x', SMUGGLED] },
  ],
  [
    'a closed contains in an allOf branch beside unevaluatedItems: false',
    withFilter({ type: 'array', maxItems: 4, unevaluatedItems: false, allOf: [{ type: 'array', contains: { const: 'x' } }] }),
    /properties\/filter\/allOf\/0: keyword "contains" is not allowed/,
    { filter: ['x', SMUGGLED] },
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

  it("closes the third review's reproduction: a failing if no longer switches off create_refund_draft's unevaluatedProperties/unevaluatedItems", () => {
    const line = { line_id: 'L1', quantity: 1 };
    const valid = { order_id: 'ORDER-7', amount: 5, unit: 'CREDIT_A', lines: [line] };
    const smuggled = { ...valid, approved: true, tenant_id: 'tenant-other', role: { admin: true } };
    const withInput = (input_schema: Record<string, unknown>): ToolSpec => ({ ...copy(specs.createRefundDraft), input_schema });
    const unevaluatedRefund = (): Record<string, unknown> => {
      const schema = copy(specs.createRefundDraft.input_schema) as Record<string, unknown>;
      delete schema.additionalProperties;
      return { ...schema, unevaluatedProperties: false };
    };

    // Control: closed by unevaluatedProperties: false alone, it registers and refuses the extra keys.
    const control = createToolRegistry([withInput(unevaluatedRefund())]).get('create_refund_draft');
    expect(control?.validateInput(valid)).toBe(true);
    expect(control?.validateInput(smuggled)).toBe(false);

    const rootIf = { ...unevaluatedRefund(), if: { type: 'object', properties: { order_id: { const: '__never__' } }, required: ['order_id'], additionalProperties: false }, then: false };
    expect(compileSchema(rootIf)(smuggled)).toBe(true);
    expect(registryErrorOf(() => createToolRegistry([withInput(rootIf)]))).toMatch(/input_schema is not exact: input_schema: keyword "if" is not allowed/);

    const itemsIf = copy(specs.createRefundDraft.input_schema) as { properties: Record<string, unknown> };
    itemsIf.properties.lines = { type: 'array', minItems: 1, maxItems: 4, unevaluatedItems: false, if: { items: { type: 'string', maxLength: 1 } }, then: false };
    expect(compileSchema(itemsIf)({ ...valid, lines: [{ ...line, approved: true, tenant_id: 'tenant-other' }] })).toBe(true);
    expect(registryErrorOf(() => createToolRegistry([withInput(itemsIf)]))).toMatch(/input_schema\/properties\/lines: keyword "if" is not allowed/);
  });

  it('refuses then, else, minContains and maxContains, each named, alone or beside if and contains', () => {
    const problems = inspectInputSchema(
      withFilter({ type: 'array', maxItems: 4, items: TEXT, if: { maxItems: 1 }, then: { minItems: 1 }, else: { minItems: 2 }, contains: { const: 'x' }, minContains: 1, maxContains: 2 }),
    ).problems;
    for (const keyword of ['if', 'then', 'else', 'contains', 'minContains', 'maxContains']) {
      expect(problems, problems.join('\n')).toContainEqual(expect.stringContaining(`properties/filter: keyword "${keyword}" is not allowed`));
    }
    // Alone, the pinned Ajv's strict mode refuses them too; the walk names them first.
    for (const lone of [{ then: false }, { else: false }]) {
      expect(inspectInputSchema({ ...withFilter(TEXT), ...lone }).problems).toHaveLength(1);
    }
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

  it('refuses a property no output may hold: a name of Object.prototype, which the guard refuses in every value', () => {
    const schema = { type: 'object', additionalProperties: false, properties: { title: { type: 'string', maxLength: 8 }, toString: { type: 'string', maxLength: 8 } } };
    expect(inspectOutputSchema(schema).problems).toEqual([
      'output_schema: property "toString" is a key the guard refuses in every value (FORBIDDEN_KEYS: it names a member of Object.prototype), so no output could hold it',
    ]);
  });
});

describe('uniqueItems over items not declared with a scalar type needs a small maxItems (Ajv compares them pair by pair)', () => {
  const objects = { type: 'object', additionalProperties: false, properties: { sku: { type: 'string', maxLength: 16 } } };
  const input = (lines: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, properties: { lines } });
  const output = (lines: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, required: ['lines'], properties: { lines } });

  it('refuses such an array without maxItems or above MAX_UNIQUE_ITEMS, in input and output schemas', () => {
    for (const lines of [
      { type: 'array', uniqueItems: true, items: objects },
      { type: 'array', uniqueItems: true, maxItems: MAX_UNIQUE_ITEMS + 1, items: objects },
      { type: 'array', uniqueItems: true, maxItems: 4_096, items: { type: 'array', maxItems: 2, items: { type: 'integer' } } },
      { type: 'array', uniqueItems: true, maxItems: 4_096, items: { type: ['string', 'object'], maxLength: 8, additionalProperties: false, properties: {} } },
    ]) {
      expect(inspectInputSchema(input(lines)).problems).toContainEqual(expect.stringMatching(/\/properties\/lines: "uniqueItems" over items not declared with a scalar "type" \(objects, arrays, or items given by "\$ref", "enum" or "const" alone\) needs "maxItems" of at most 256/));
      expect(inspectOutputSchema(output({ ...lines, maxItems: lines.maxItems ?? 4_096 })).problems).toContainEqual(expect.stringMatching(/"uniqueItems"/));
    }
  });

  it('says what it refuses when the items are scalars given by $ref, enum or const without a type (review: the message said "objects or arrays")', () => {
    const refused = '"uniqueItems" over items not declared with a scalar "type" (objects, arrays, or items given by "$ref", "enum" or "const" alone) needs "maxItems" of at most 256';
    for (const [items, root] of [
      [{ $ref: '#/$defs/tag' }, { $defs: { tag: { type: 'string', maxLength: 32 } } }],
      [{ enum: ['a', 'b', 'c'] }, {}],
      [{ const: 'a' }, {}],
    ] as const) {
      const schema = { ...input({ type: 'array', uniqueItems: true, maxItems: 1_000, items }), ...root };
      const problems = inspectInputSchema(schema).problems;
      expect(problems).toEqual([`input_schema/properties/lines: ${refused} (they are compared pair by pair), or "items" with a scalar "type"`]);
      expect(problems.join('\n')).not.toMatch(/may be objects or arrays/);
    }
  });

  it('accepts it up to MAX_UNIQUE_ITEMS, and arrays of scalars at any length', () => {
    for (const lines of [
      { type: 'array', uniqueItems: true, maxItems: MAX_UNIQUE_ITEMS, items: objects },
      { type: 'array', uniqueItems: true, maxItems: 4_096, items: { type: 'string', maxLength: 16 } },
      { type: 'array', uniqueItems: true, maxItems: 4_096, items: { type: ['integer', 'null'] } },
      { type: 'array', uniqueItems: false, maxItems: 4_096, items: objects },
    ]) {
      expect(inspectInputSchema(input(lines)).problems).toEqual([]);
      expect(inspectOutputSchema(output(lines)).problems).toEqual([]);
    }
  });
});

describe('media-type and link fields are found by the head word of their name (review: url2, src, mime, links{self} were missed; curl was a link)', () => {
  const STRING = { type: 'string', maxLength: 256 };
  const strings = (items: object = STRING) => ({ type: 'array', maxItems: 4, items });
  const exact = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, properties });
  const found = (properties: Record<string, unknown>) => {
    const { problems, uriPointers, mediaPointers } = inspectOutputSchema(exact(properties));
    expect(problems).toEqual([]);
    return { links: uriPointers, media: mediaPointers };
  };

  it('splits a name into lower-case words at underscores, case changes and digits, dropping numbers and version words', () => {
    for (const [name, words] of [
      ['url', ['url']],
      ['url2', ['url']],
      ['URL_2', ['url']],
      ['imageUrl1', ['image', 'url']],
      ['imageURL', ['image', 'url']],
      ['imageURLs', ['image', 'urls']],
      ['URLList', ['url', 'list']],
      ['urlList', ['url', 'list']],
      ['url_v2', ['url']],
      ['urlV2', ['url']],
      ['contentType2', ['content', 'type']],
      ['MIME_TYPE', ['mime', 'type']],
      ['mediaType', ['media', 'type']],
      ['file_media_types', ['file', 'media', 'types']],
      ['download_link', ['download', 'link']],
      ['_links', ['links']],
      ['HREF', ['href']],
      ['s3_key', ['s', 'key']],
      ['mp4Url', ['mp', 'url']],
      ['curl', ['curl']],
      ['sample_curl', ['sample', 'curl']],
      ['cufflink', ['cufflink']],
      ['v2', []],
      ['___', []],
      ['2024', []],
      ['imageurl', ['imageurl']],
    ] as const) {
      expect(fieldNameWords(name), name).toEqual(words);
    }
  });

  it('finds links and media types whatever the spelling, digits or version of the head word', () => {
    for (const name of ['url', 'url2', 'URL_2', 'imageUrl1', 'imageURL', 'imageURLs', 'url_v2', 'urlV2', 'sourceUrl', 'source_url', 'download_link', 'HREF', 'uris', 'src', 'image_src', 'website', 'homepage', 'permalink', 'hyperlink', '_links']) {
      expect(isLinkFieldName(name), name).toBe(true);
      expect(isMediaFieldName(name), name).toBe(false);
      expect(found({ [name]: STRING }), name).toEqual({ links: [`/${name}`], media: [] });
    }
    // A last word that only says "several of" is passed over: the field is named for its items.
    for (const name of ['urlList', 'url_list', 'URLList', 'imageUrlArray', 'link_set']) {
      expect(isLinkFieldName(name), name).toBe(true);
      expect(found({ [name]: { type: 'array', maxItems: 4, items: STRING } }), name).toEqual({ links: [`/${name}/*`], media: [] });
    }
    expect(isMediaFieldName('mimeTypeList')).toBe(true);
    expect(isLinkFieldName('list')).toBe(false);
    for (const name of ['mime', 'mimeType', 'mime_type', 'MIME_TYPE', 'mimetypes', 'mediaType', 'media_type', 'content_type', 'contentType', 'contentType2', 'CONTENT_TYPE_2', 'file_media_types', 'fileContentType']) {
      expect(isMediaFieldName(name), name).toBe(true);
      expect(isLinkFieldName(name), name).toBe(false);
      expect(found({ [name]: STRING }), name).toEqual({ links: [], media: [`/${name}`] });
    }
  });

  it('leaves a name alone when its head word is another word, or the link letters sit inside one word', () => {
    for (const name of [
      'curl',
      'sample_curl',
      'cufflink',
      'curly_brace',
      'link_text',
      'link_count',
      'url_label',
      'image_url_alt',
      'imageurl',
      'mime_type_known',
      'media',
      'content',
      'type',
      'mimeTypeName',
      'pantomime',
      'source',
      'v2',
    ]) {
      expect(isLinkFieldName(name), name).toBe(false);
      expect(isMediaFieldName(name), name).toBe(false);
      expect(found({ [name]: STRING }), name).toEqual({ links: [], media: [] });
    }
  });

  it('holds a string, a nullable string, or arrays (of arrays) of strings; not other types', () => {
    expect(found({ url: { type: ['string', 'null'], maxLength: 256 } }).links).toEqual(['/url']);
    expect(found({ urls: strings() }).links).toEqual(['/urls/*']);
    expect(found({ urls: strings(strings()) }).links).toEqual(['/urls/*/*']);
    expect(found({ image_urls: strings(strings(strings())) }).links).toEqual(['/image_urls/*/*/*']);
    expect(found({ mime_types: strings(strings()) }).media).toEqual(['/mime_types/*/*']);
    expect(found({ url: { type: 'integer' }, link: { type: 'boolean' }, hrefs: strings({ type: 'integer' }) })).toEqual({ links: [], media: [] });
  });

  it('treats every string member of a links or urls object as a link (JSON:API links: { self, next })', () => {
    const links = exact({ self: STRING, next: { type: ['string', 'null'], maxLength: 256 }, alternates: strings(), count: { type: 'integer' }, meta: exact({ note: STRING }) });
    expect(found({ links }).links).toEqual(['/links/self', '/links/next', '/links/alternates/*']);
    expect(found({ page_urls: { ...links, type: ['object', 'null'] } }).links).toEqual(['/page_urls/self', '/page_urls/next', '/page_urls/alternates/*']);
    // Arrays of such objects, and an object nested in one by a link name.
    expect(found({ _links: strings(exact({ self: STRING })) }).links).toEqual(['/_links/*/self']);
    expect(found({ data: exact({ links: exact({ related: exact({ href: STRING }) }) }) }).links).toEqual(['/data/links/related/href']);
    // A singular `link` object or another head word: only its own link names count.
    expect(found({ link: exact({ title: STRING, href: STRING }) }).links).toEqual(['/link/href']);
    expect(found({ link_info: exact({ self: STRING }) }).links).toEqual([]);
  });

  it('lists each link field once, whether found by format, by name or as a member', () => {
    expect(found({ url: { ...STRING, format: 'uri' }, links: exact({ href: { ...STRING, format: 'uri' } }) }).links).toEqual(['/url', '/links/href']);
  });
});
