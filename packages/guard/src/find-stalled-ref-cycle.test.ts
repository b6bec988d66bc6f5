import { describe, expect, it } from 'vitest';
import { MAX_SCHEMA_NESTING } from './create-ref-resolver.js';
import { findStalledRefCycle } from './find-stalled-ref-cycle.js';
import { compileSchema } from './pinned-ajv.js';

describe('findStalledRefCycle', () => {
  const stalled: [string, Record<string, unknown>, RegExp][] = [
    [
      'the review probe: an anyOf branch that refers back to its own definition',
      {
        type: 'object',
        additionalProperties: false,
        required: ['s'],
        properties: { s: { $ref: '#/$defs/a' } },
        $defs: { a: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'string', allOf: [{ $ref: '#/$defs/a' }] }] } },
      },
      /^\/properties\/s\/\$ref\/anyOf\/1\/allOf\/0\/\$ref$/,
    ],
    ['a definition that is a $ref to itself', { properties: { x: { $ref: '#/$defs/a' } }, $defs: { a: { $ref: '#/$defs/a' } } }, /\/\$ref$/],
    ['the root as its own $ref', { type: 'object', $ref: '#' }, /^\/\$ref$/],
    ['through not', { $ref: '#/$defs/a', $defs: { a: { not: { $ref: '#/$defs/a' } } } }, /not\/\$ref$/],
    ['through if/then', { $ref: '#/$defs/a', $defs: { a: { if: { type: 'string' }, then: { $ref: '#/$defs/a' } } } }, /then\/\$ref$/],
    ['through else', { $ref: '#/$defs/a', $defs: { a: { if: { type: 'string' }, else: { $ref: '#/$defs/a' } } } }, /else\/\$ref$/],
    ['through dependentSchemas', { type: 'object', dependentSchemas: { k: { $ref: '#' } } }, /dependentSchemas\/k\/\$ref$/],
    ['two definitions referring to each other', { $ref: '#/$defs/a', $defs: { a: { oneOf: [{ $ref: '#/$defs/b' }] }, b: { allOf: [{ $ref: '#/$defs/a' }] } } }, /\$ref$/],
    [
      'reached only inside an array item',
      { type: 'array', items: { $ref: '#/$defs/loop' }, $defs: { loop: { oneOf: [{ type: 'null' }, { $ref: '#/$defs/loop' }] } } },
      /^\/items\/\$ref\/oneOf\/1\/\$ref$/,
    ],
    [
      'across resources named by $id',
      {
        $id: 'urn:toolseal:test:cycle',
        properties: { p: { $ref: 'urn:toolseal:test:cycle-b' } },
        $defs: { b: { $id: 'urn:toolseal:test:cycle-b', allOf: [{ $ref: 'urn:toolseal:test:cycle#/$defs/c' }] }, c: { anyOf: [{ $ref: 'urn:toolseal:test:cycle-b' }] } },
      },
      /\$ref$/,
    ],
    [
      'through a $ref that percent-encodes a letter of the resource it names (as the pinned Ajv resolves it)',
      {
        $id: 'https://ex.test/root',
        type: 'object',
        properties: { p: { $ref: 'https://ex.test/s%75b' } },
        $defs: { a: { $id: 'https://ex.test/sub', anyOf: [{ $ref: '#' }, { type: 'string' }] } },
      },
      /^\/properties\/p\/\$ref\/anyOf\/0\/\$ref$/,
    ],
    ...(() => {
      // The review: stalled cycles Ajv follows that the check resolved elsewhere.
      const base = 'https://ex.test/root';
      const stall = (ref: string) => ({ anyOf: [{ not: { const: 7 } }, { $ref: ref }] });
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['through "#/", the resource itself to Ajv', { $id: base, type: 'object', properties: { p: { $ref: 'sub' } }, $defs: { s: { $id: 'sub', ...stall('#/') } } }, /\$ref$/],
        ['through "sub#/"', { $id: base, type: 'object', properties: { p: { $ref: 'sub' } }, $defs: { s: { $id: 'sub', ...stall('sub#/') } } }, /\$ref$/],
        ['to an $id inside dependencies', { $id: base, type: 'object', properties: { p: { $ref: 'dep' } }, dependencies: { zz: { $id: 'dep', ...stall('#') } } }, /\$ref$/],
        ['to an $id inside contentSchema', { $id: base, type: 'object', properties: { p: { $ref: 'cs' } }, contentMediaType: 'application/json', contentSchema: { $id: 'cs', ...stall('#') } }, /\$ref$/],
        [
          'through a pointer that passes a subschema with an $id (its base changes on the way, as in Ajv)',
          { $id: base, type: 'object', properties: { p: { $ref: '#/$defs/s/$defs/t' } }, $defs: { s: { $id: 'sub', ...stall(`${base}#/$defs/s/$defs/t`), $defs: { t: stall('#') } } } },
          /\$ref$/,
        ],
      ];
      return cases;
    })(),
    ['through an escaped pointer', { $ref: '#/$defs/a~1b', $defs: { 'a/b': { allOf: [{ $ref: '#/$defs/a~1b' }] } } }, /allOf\/0\/\$ref$/],
  ];

  it.each(stalled)('finds %s', (_, schema, where) => {
    const found = findStalledRefCycle(schema);
    expect(found?.tooDeep).toBe(false);
    expect(found?.where).toMatch(where);
  });

  const ending: [string, Record<string, unknown>][] = [
    ['recursion through properties', { type: 'object', properties: { child: { $ref: '#' } }, additionalProperties: false }],
    ['recursion through items', { $ref: '#/$defs/list', $defs: { list: { type: 'array', items: { $ref: '#/$defs/list' } } } }],
    ['recursion through prefixItems', { type: 'array', prefixItems: [{ $ref: '#' }] }],
    ['recursion through additionalProperties', { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { $ref: '#' }] } }],
    ['recursion through contains', { type: 'array', contains: { $ref: '#' } }],
    ['recursion through unevaluatedProperties', { type: 'object', unevaluatedProperties: { $ref: '#' } }],
    ['recursion through propertyNames', { type: 'object', propertyNames: { $ref: '#' } }],
    ['recursion through patternProperties', { type: 'object', patternProperties: { '^x': { $ref: '#' } } }],
    ['a definition used twice at one place (no cycle)', { properties: { x: { allOf: [{ $ref: '#/$defs/a' }, { $ref: '#/$defs/a' }] } }, $defs: { a: { type: 'string' } } }],
    ['a chain of definitions without a loop', { $ref: '#/$defs/a', $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { anyOf: [{ $ref: '#/$defs/c' }] }, c: { type: 'integer' } } }],
    ['a $ref-shaped value in const, and a property named $ref', { properties: { $ref: { const: { $ref: '#', allOf: [{ $ref: '#' }] } } } }],
    ['a cycle in a definition nothing applies', { type: 'string', $defs: { a: { allOf: [{ $ref: '#/$defs/a' }] } } }],
  ];

  it.each(ending)('accepts %s', (_, schema) => {
    expect(findStalledRefCycle(schema)).toBeNull();
  });

  it('refuses same-place subschemas chained deeper than MAX_SCHEMA_NESTING, without overflowing the stack', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < MAX_SCHEMA_NESTING + 10; depth += 1) schema = { allOf: [schema] };
    expect(findStalledRefCycle(schema)?.tooDeep).toBe(true);
    let shallow: Record<string, unknown> = { type: 'string' };
    for (let depth = 0; depth < 100; depth += 1) shallow = { allOf: [shallow] };
    expect(findStalledRefCycle(shallow)).toBeNull();
  });
});

describe('compileSchema refuses a stalled $ref cycle at start-up', () => {
  it('refuses the review probe, whose validator passes the start-up probes and overflows the stack later', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['s'],
      properties: { s: { $ref: '#/$defs/a' } },
      $defs: { a: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'string', allOf: [{ $ref: '#/$defs/a' }] }] } },
    };
    expect(() => compileSchema(schema)).toThrow(TypeError);
    expect(() => compileSchema(schema)).toThrow(/"\$ref" cycle returns to a subschema at #\/properties\/s\/\$ref\/anyOf\/1\/allOf\/0\/\$ref without moving into the value/);
  });

  it('still compiles recursive contracts that move into the value, and they answer', () => {
    const tree = compileSchema({ type: 'object', properties: { child: { $ref: '#' } }, additionalProperties: false });
    expect(tree({ child: { child: {} } })).toBe(true);
    expect(tree({ child: { child: { other: 1 } } })).toBe(false);
    // A key is validated as a string against the root: the string branch answers for it.
    const names = compileSchema({ anyOf: [{ type: 'string', maxLength: 1 }, { type: 'object', propertyNames: { $ref: '#' } }] });
    expect(names({ a: 1 })).toBe(true);
    expect(names({ ab: 1 })).toBe(false);
    expect(names(1)).toBe(false);
  });
});
