import { describe, expect, it } from 'vitest';
import { ajvErrorsToReasons } from './ajv-errors-to-reasons.js';
import { compileSchema, createPinnedAjv, type PinnedFormat } from './pinned-ajv.js';
import { ValidationBudgetExceeded, VALIDATION_WORK_BASE } from './validation-budget.js';

describe('createPinnedAjv', () => {
  it('pins the configuration', () => {
    const { opts } = createPinnedAjv();
    expect(opts).toMatchObject({
      strictSchema: true,
      strictTypes: true,
      strictTuples: true,
      strictRequired: true,
      strictNumbers: true,
      ownProperties: true,
      unicodeRegExp: true,
      validateFormats: true,
    });
    expect(opts.allErrors ?? false).toBe(false);
    expect(opts.coerceTypes ?? false).toBe(false);
    expect(opts.useDefaults ?? false).toBe(false);
    expect(opts.removeAdditional ?? false).toBe(false);
  });

  it('validates the four pinned formats', () => {
    const ajv = createPinnedAjv();
    const cases: [PinnedFormat, string, string][] = [
      ['date-time', '2026-07-19T00:00:00Z', '2026-07-19 noon'],
      ['uri', 'https://example.com/a?b=c', 'not a uri'],
      ['email', 'a@example.com', 'a@'],
      ['uuid', '123e4567-e89b-12d3-a456-426614174000', '123e4567'],
    ];
    for (const [format, good, bad] of cases) {
      const validate = ajv.compile({ type: 'string', format });
      expect(validate(good)).toBe(true);
      expect(validate(bad)).toBe(false);
    }
  });

  it('refuses formats outside the pinned set', () => {
    expect(() => createPinnedAjv().compile({ type: 'string', format: 'hostname' })).toThrow(/unknown format/);
    expect(() => createPinnedAjv({ formats: ['uuid'] }).compile({ type: 'string', format: 'email' })).toThrow(/unknown format/);
    expect(() => createPinnedAjv({ formats: ['ipv4' as PinnedFormat] })).toThrow(TypeError);
  });

  it('is strict: unknown keywords and untyped keywords fail at compile time', () => {
    expect(() => createPinnedAjv().compile({ type: 'object', propertys: {} })).toThrow(/unknown keyword/);
    expect(() => createPinnedAjv().compile({ minLength: 1 })).toThrow(/strict mode/);
  });

  it('never coerces, fills defaults or removes properties', () => {
    const validate = createPinnedAjv().compile({
      type: 'object',
      properties: { amount: { type: 'integer' }, note: { type: 'string', default: 'x' } },
      additionalProperties: false,
    });
    expect(validate({ amount: '1' })).toBe(false);
    const value = { amount: 1 };
    expect(validate(value)).toBe(true);
    expect(value).toEqual({ amount: 1 });
    const extra = { amount: 1, approved: true };
    expect(validate(extra)).toBe(false);
    expect(extra).toEqual({ amount: 1, approved: true });
  });

  it('ignores inherited properties', () => {
    const validate = createPinnedAjv().compile({ type: 'object', required: ['approved'], properties: { approved: { const: true } } });
    expect(validate(Object.create({ approved: true }))).toBe(false);
  });
});

describe('compileSchema', () => {
  it('compiles once per schema object', () => {
    const schema = { type: 'integer' };
    expect(compileSchema(schema)).toBe(compileSchema(schema));
    expect(compileSchema({ type: 'integer' })).not.toBe(compileSchema(schema));
  });

  it('keeps contracts that reuse an $id apart', () => {
    const first = compileSchema({ $id: 'urn:toolseal:test:shared', type: 'string' });
    const second = compileSchema({ $id: 'urn:toolseal:test:shared', type: 'integer' });
    expect(first('x')).toBe(true);
    expect(first(1)).toBe(false);
    expect(second(1)).toBe(true);
    expect(second('x')).toBe(false);
  });

  it('never resolves a $ref into another contract', () => {
    compileSchema({ $id: 'urn:toolseal:test:other', type: 'string' });
    expect(() => compileSchema({ $ref: 'urn:toolseal:test:other' })).toThrow(/resolve reference/);
  });

  it('compiles a recursive contract without $id, and still resolves nothing outside it', () => {
    const tree = { type: 'object', properties: { child: { $ref: '#' } }, additionalProperties: false };
    const validate = compileSchema(tree);
    expect(validate({ child: { child: {} } })).toBe(true);
    expect(validate({ child: { child: { extra: 1 } } })).toBe(false);
    expect(Object.hasOwn(tree, '$id')).toBe(false);
    expect(() => compileSchema({ $ref: 'other.json#/$defs/x' })).toThrow(/can't resolve reference/);
  });

  it('refuses $dynamicRef at start-up, wherever it sits, even where only some inputs reach it', () => {
    expect(() => compileSchema({ $dynamicRef: '#meta' })).toThrow(/\$dynamicRef/);
    // Reached only for a non-empty string: a probe of a few values would never find it.
    expect(() => compileSchema({ if: { type: 'string', minLength: 1 }, then: { $dynamicRef: '#meta' } })).toThrow(/\$dynamicRef/);
    expect(() => compileSchema({ properties: { a: { items: { anyOf: [{ $dynamicRef: '#x' }] } } } })).toThrow(/\$dynamicRef/);
    // A property of that name is data, not the keyword.
    const named = compileSchema({ type: 'object', properties: { $dynamicRef: { type: 'string' } } });
    expect(named({ $dynamicRef: 'x' })).toBe(true);
  });

  it('refuses at start-up a $ref cycle that never moves into the value, before any probe value', () => {
    // Ajv compiles a `$ref` cycle through `allOf` into mutual recursion that never consumes input:
    // refused by `findStalledRefCycle` (the probe values behind it remain a backstop).
    expect(() => compileSchema({ $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' })).toThrow(
      /"\$ref" cycle returns to a subschema/,
    );
  });

  it('resolves references inside the schema itself', () => {
    const validate = compileSchema({
      $id: 'urn:toolseal:test:self',
      $defs: { line: { type: 'object', required: ['id'], properties: { id: { type: 'string' } }, additionalProperties: false } },
      type: 'array',
      items: { $ref: '#/$defs/line' },
    });
    expect(validate([{ id: 'a' }])).toBe(true);
    expect(validate([{ id: 1 }])).toBe(false);
  });

  it('throws at start-up for a schema strict mode rejects, and for non-schemas', () => {
    expect(() => compileSchema({ type: 'object', required: ['x'] })).toThrow(/strict mode/);
    expect(() => compileSchema({ $async: true, type: 'object' })).toThrow(TypeError);
    expect(() => compileSchema([] as unknown as object)).toThrow(TypeError);
    expect(() => compileSchema(null as unknown as object)).toThrow(TypeError);
  });
});

describe('compileSchema: patterns', () => {
  it('matches `pattern` in linear time: a backtracking pattern answers on a long input', () => {
    const validate = compileSchema({ type: 'string', pattern: '^(a+)+$' });
    // The native engine needs about 2^20,000 steps for this one; a regression is a test timeout.
    expect(validate(`${'a'.repeat(20_000)}!`)).toBe(false);
    expect(validate('a'.repeat(20_000))).toBe(true);
  });

  it('keeps pattern semantics and error reporting: a search, Unicode mode, Ajv\'s error shape', () => {
    const validate = compileSchema({
      type: 'object',
      properties: { code: { type: 'string', pattern: '^ORDER-[A-Z0-9]{1,32}$' }, note: { type: 'string', pattern: 'b' }, emoji: { type: 'string', pattern: '^.$' } },
    });
    expect(validate({ code: 'ORDER-7F3K', note: 'abc', emoji: '\u{1F600}' })).toBe(true);
    expect(validate({ note: 'acd' })).toBe(false);
    expect(validate.errors).toMatchObject([{ keyword: 'pattern', instancePath: '/note', params: { pattern: 'b' }, message: 'must match pattern "b"' }]);
    expect(validate({ code: 'ORDER-7f3k' })).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ pattern: '^ORDER-[A-Z0-9]{1,32}$' });
  });

  it('keeps two patterns of one schema apart (Ajv caches compiled patterns by their text)', () => {
    const validate = compileSchema({ type: 'object', properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } } });
    expect(validate({ a: 'a', b: 'b' })).toBe(true);
    expect(validate({ a: 'b' })).toBe(false);
    expect(validate({ b: 'a' })).toBe(false);
  });

  it('refuses at start-up a pattern the linear-time engine refuses', () => {
    expect(() => compileSchema({ type: 'string', pattern: '^(a)\\1$' })).toThrow(/backreference/);
    expect(() => compileSchema({ type: 'string', pattern: '^(?=a)' })).toThrow(/lookahead/);
    expect(() => compileSchema({ type: 'string', pattern: '\\bword' })).toThrow(/word boundaries/);
    expect(() => compileSchema({ type: 'string', pattern: '\\p{L}' })).toThrow(/Unicode property/);
    expect(() => compileSchema({ type: 'string', pattern: '(?:[a-z]{1,100}){100}' })).toThrow(/automaton states/);
    expect(() => compileSchema({ type: 'string', pattern: '\\a' })).toThrow(/not a valid regular expression in Unicode mode/);
    // Wherever the pattern sits: under `properties`, and as a `patternProperties` key.
    expect(() => compileSchema({ type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } })).toThrow(/backreference/);
    expect(() => createPinnedAjv().compile({ type: 'object', patternProperties: { '(?<=x)y': { type: 'string' } } })).toThrow(/lookbehind/);
  });

  it('uses the engine in every pinned instance, patternProperties included', () => {
    const ajv = createPinnedAjv();
    expect(ajv.opts.code.regExp.code).not.toBe('new RegExp');
    const validate = ajv.compile({ type: 'object', patternProperties: { '^(x+x+)+y$': { type: 'integer' } } });
    expect(validate({ [`${'x'.repeat(20_000)}y`]: 'not an integer' })).toBe(false);
    expect(validate({ [`${'x'.repeat(20_000)}`]: 'not an integer' })).toBe(true);
  });
});

describe('compileSchema: meta-schema', () => {
  it('rejects a schema the 2020-12 meta-schema rejects', () => {
    expect(() => compileSchema({ type: 'objectx' })).toThrow(/invalid schema/);
    expect(() => compileSchema({ type: 'string', minLength: -1 })).toThrow(/invalid schema/);
    expect(() => compileSchema({ type: 'object', required: 'a' })).toThrow(/invalid schema/);
  });

  it('registers no $id anywhere while checking', () => {
    const schema = { $id: 'urn:toolseal:test:meta-check', type: 'string' };
    compileSchema(schema);
    expect(() => compileSchema({ $ref: 'urn:toolseal:test:meta-check' })).toThrow(/resolve reference/);
  });
});

describe('compileSchema: uniqueItems', () => {
  const strings = compileSchema({ type: 'array', uniqueItems: true, items: { type: 'string' } });
  const mixed = compileSchema({ type: 'array', uniqueItems: true, items: { anyOf: ['string', 'number', 'null', 'boolean', 'object', 'array'].map((type) => ({ type })) } });

  it('sees "__proto__" twice (Ajv kept scalar items as keys of a plain object, where it never was)', () => {
    expect(strings(['__proto__', 'constructor', 'toString'])).toBe(true);
    expect(strings(['__proto__', 'constructor', 'toString', 'constructor'])).toBe(false);
    expect(strings(['__proto__', '__proto__'])).toBe(false);
    expect(ajvErrorsToReasons(strings.errors)).toEqual([{ field: '', rule: 'unique_items' }]);
  });

  it('compares as JSON Schema does: by type and value, deep for objects and arrays', () => {
    expect(mixed(['1', 1, true, 'true', null, 'null'])).toBe(true);
    expect(mixed([0, -0])).toBe(false);
    expect(mixed([{ a: 1, b: [2] }, { b: [2], a: 1 }])).toBe(false);
    expect(mixed([{ a: 1 }, { a: '1' }, [1], ['1'], [[1]]])).toBe(true);
    expect(mixed([[1, 2], [2, 1]])).toBe(true);
    expect(mixed([[1, 2], 'x', [1, 2]])).toBe(false);
  });

  it('is off when uniqueItems is false', () => {
    expect(compileSchema({ type: 'array', uniqueItems: false, items: { type: 'string' } })(['a', 'a'])).toBe(true);
  });
});

describe('compileSchema: the work budget of one validation (schemas with a $ref)', () => {
  const OPS = ['and', 'or', 'nand', 'nor'];
  // A filter grammar: a oneOf of exact objects, one per operator, and a leaf with a list.
  const grammar = (discriminatorFirst: boolean): object => ({
    type: 'object',
    additionalProperties: false,
    required: ['filter'],
    properties: { filter: { $ref: '#/$defs/expr' } },
    $defs: {
      expr: {
        oneOf: [
          ...OPS.map((op) => {
            const args = { type: 'array', maxItems: 8, items: { $ref: '#/$defs/expr' } };
            return {
              type: 'object',
              additionalProperties: false,
              required: ['args', 'op'],
              properties: discriminatorFirst ? { op: { const: op }, args } : { args, op: { const: op } },
            };
          }),
          {
            type: 'object',
            additionalProperties: false,
            required: ['field'],
            properties: { field: { type: 'string' }, in: { type: 'array', maxItems: 4096, items: { type: 'string', maxLength: 256 } } },
          },
        ],
      },
    },
  });
  const nested = (levels: number, leaf: object = { field: 'a' }): unknown => {
    let expr: unknown = leaf;
    for (let level = 0; level < levels; level++) expr = { args: [expr], op: OPS[level % OPS.length] };
    return { filter: expr };
  };
  const thrownBy = (run: () => unknown): unknown => {
    try {
      run();
    } catch (error) {
      return error;
    }
    return null;
  };

  it('stops a contract whose every oneOf branch recurses before the member that tells them apart', () => {
    // Each level multiplied the work by four: 15 levels (363 bytes) took three and a half minutes.
    const validate = compileSchema(grammar(false));
    expect(validate(nested(3))).toBe(true);
    const thrown = thrownBy(() => validate(nested(15)));
    expect(thrown).toBeInstanceOf(ValidationBudgetExceeded);
    expect(thrown).toBeInstanceOf(RangeError);
    expect((thrown as ValidationBudgetExceeded).budget).toBeGreaterThan(VALIDATION_WORK_BASE);
    expect((thrown as Error).message).toMatch(/before the recursive one/);
    // The next validation has a budget of its own.
    expect(validate(nested(2))).toBe(true);
    expect(validate({ filter: { op: 'and', args: [{ field: 1 }] } })).toBe(false);
  });

  it('the review: counts the work of each application, not only the $refs (a long list under each level took 66 s)', () => {
    // 14 levels over a leaf with 2,048 strings of 240 characters (498 KB): every application of the
    // leaf walks the list, and a budget of $ref applications let 32 per value of them through.
    const validate = compileSchema(grammar(false));
    const leaf = { field: 'a', in: Array.from({ length: 2_048 }, () => 'x'.repeat(240)) };
    expect(thrownBy(() => validate(nested(14, leaf)))).toBeInstanceOf(ValidationBudgetExceeded);
    expect(compileSchema(grammar(true))(nested(14, leaf))).toBe(true);
  });

  it('the review: stops definitions that each apply the next one twice, without recursion', () => {
    const $defs: Record<string, object> = { d24: { type: 'array', items: { type: 'string' } } };
    for (let index = 0; index < 24; index++) {
      $defs[`d${index}`] = { type: 'array', items: { type: 'string' }, allOf: [{ $ref: `#/$defs/d${index + 1}` }, { $ref: `#/$defs/d${index + 1}` }] };
    }
    const validate = compileSchema({ type: 'object', properties: { tags: { $ref: '#/$defs/d0' } }, $defs });
    expect(thrownBy(() => validate({ tags: ['x'] }))).toBeInstanceOf(ValidationBudgetExceeded);
    expect(validate({})).toBe(true);
  });

  it('the review: counts $refs under dependencies too', () => {
    // The grammar's definitions and its entry moved under `dependencies`, which the count skipped.
    const schema = JSON.parse(JSON.stringify(grammar(false)).replaceAll('#/$defs/expr', '#/dependencies/filter/$defs/expr')) as { properties: unknown; $defs: unknown };
    const validate = compileSchema({ type: 'object', dependencies: { filter: { properties: schema.properties, $defs: schema.$defs } } });
    expect(validate(nested(2))).toBe(true);
    expect(thrownBy(() => validate(nested(12)))).toBeInstanceOf(ValidationBudgetExceeded);
  });

  it('lets the same grammar through at any depth when the discriminating member comes first', () => {
    const validate = compileSchema(grammar(true));
    expect(validate(nested(15))).toBe(true);
    expect(validate(nested(200))).toBe(true);
    expect(validate({ filter: { op: 'xor', args: [] } })).toBe(false);
  });

  it('the review: grows with the schema as well as the value (a flat union of 100 $ref alternatives over 1,000 items)', () => {
    const $defs: Record<string, object> = { event: { oneOf: Array.from({ length: 100 }, (_, index) => ({ $ref: `#/$defs/e${index}` })) } };
    for (let index = 0; index < 100; index++) {
      $defs[`e${index}`] = { type: 'object', additionalProperties: false, required: ['kind'], properties: { kind: { const: `k${index}` }, at: { type: 'integer' } } };
    }
    const validate = compileSchema({ type: 'object', required: ['events'], properties: { events: { type: 'array', items: { $ref: '#/$defs/event' } } }, $defs });
    expect(validate({ events: Array.from({ length: 1_000 }, (_, index) => ({ kind: `k${index % 100}`, at: index })) })).toBe(true);
    expect(validate({ events: [{ kind: 'k100' }] })).toBe(false);
  });

  it('the review: a getter that throws while the value is sized leaves no budget scope open', () => {
    const withRef = compileSchema({ type: 'object', properties: { r: { $ref: '#/$defs/x' } }, $defs: { x: { type: 'string' } } });
    const hostile = Object.defineProperty({}, 'r', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(() => withRef(hostile)).toThrow('getter');
    // The pattern scope ended too: each validation has its pattern budget again (with the scope left
    // open, one of these threw PatternBudgetExceeded from the 18th on).
    const withPattern = compileSchema({ type: 'object', properties: { s: { type: 'string', pattern: '[ab]*a[ab]{200}$' } } });
    let seed = 1;
    const text = (): string =>
      Array.from({ length: 1_000 }, () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) & 1_024 ? 'a' : 'b')).join('');
    for (let index = 0; index < 40; index++) expect(typeof withPattern({ s: text() })).toBe('boolean');
    expect(withRef({ r: 'x' })).toBe(true);
  });

  it('the review: refuses a $dynamicRef under dependencies as anywhere else', () => {
    expect(() => compileSchema({ type: 'object', dependencies: { zz: { $dynamicRef: '#' } } })).toThrow(/\$dynamicRef/);
  });

  it('the review: refuses a $ref into the keyword that counts the work, a $dynamicAnchor, and that keyword in a contract', () => {
    expect(() => compileSchema({ properties: { id: { $ref: '#/x-toolseal-work' } } })).toThrow(/can't resolve reference "#\/x-toolseal-work"/);
    expect(() => compileSchema({ $defs: { id: { type: 'string' } }, properties: { id: { $ref: '#/$defs/id/x-toolseal-work' } } })).toThrow(/can't resolve reference/);
    expect(() =>
      compileSchema({ type: 'object', properties: { p: { $ref: '#D' } }, $defs: { s: { $dynamicAnchor: 'D', anyOf: [{ not: { const: 7 } }, { $ref: '#D' }] } } }),
    ).toThrow(/\$dynamicAnchor/);
    expect(() => compileSchema({ 'x-toolseal-work': 0, $ref: '#/$defs/s', $defs: { s: { type: 'string' } } })).toThrow(/x-toolseal-work/);
  });

  it('the review: counts the length of keys in the value, which propertyNames checks (a valid map of long keys was refused)', () => {
    const validate = compileSchema({
      type: 'object',
      properties: { tags: { $ref: '#/$defs/map' } },
      $defs: { map: { type: 'object', propertyNames: { type: 'string', maxLength: 4_000 }, additionalProperties: { type: 'integer' } } },
    });
    const map = Object.fromEntries(Array.from({ length: 256 }, (_, index) => [`${index}`.padEnd(1_000, 'k'), index]));
    expect(validate({ tags: map })).toBe(true);
  });

  /** A doubling chain of `depth` definitions applied to `v`, ending in `leaf`, beside a list of strings and `extra` (never applied). */
  const doublingChain = (depth: number, leaf: object, link: object, extra: object = {}): object => {
    const $defs: Record<string, object> = { [`d${depth}`]: leaf };
    for (let index = 0; index < depth; index++) {
      $defs[`d${index}`] = { ...link, allOf: [{ $ref: `#/$defs/d${index + 1}` }, { $ref: `#/$defs/d${index + 1}` }] };
    }
    const pad = { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 65_536 } };
    return { type: 'object', additionalProperties: false, required: ['v'], properties: { v: { $ref: '#/$defs/d0' }, pad, ...extra }, $defs };
  };
  const padded = (v: unknown): unknown => ({ v, pad: ['x'.repeat(65_000)] });

  it('the review: an enum elsewhere in the schema does not buy the chain more work (a 3,000-code enum let it run 34 s)', () => {
    const codes = Array.from({ length: 3_000 }, (_, index) => `C${String(index).padStart(4, '0')}`);
    const validate = compileSchema(doublingChain(30, { type: 'integer' }, { type: 'integer' }, { currency: { type: 'string', enum: codes } }));
    expect(thrownBy(() => validate(padded(7)))).toBeInstanceOf(ValidationBudgetExceeded);
    expect(compileSchema(doublingChain(2, { type: 'integer' }, { type: 'integer' }, { currency: { type: 'string', enum: codes } }))({ v: 1, currency: 'C2999' })).toBe(true);
  });

  it('the review: charges what a subschema checks whatever the value holds (a leaf of 200 properties ran 78 s)', () => {
    const properties = Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`field_${index}`, { type: 'integer' }]));
    const validate = compileSchema(doublingChain(30, { type: 'object', additionalProperties: false, properties }, { type: 'object', additionalProperties: false }));
    expect(thrownBy(() => validate(padded({})))).toBeInstanceOf(ValidationBudgetExceeded);
    // The same leaf, applied once to each of 4,096 items, is no budget failure.
    const once = compileSchema({ type: 'array', items: { $ref: '#/$defs/leaf' }, $defs: { leaf: { type: 'object', properties } } });
    expect(once(Array.from({ length: 4_096 }, () => ({ field_0: 1 })))).toBe(true);
  });

  it('the review: a pattern tested again on the same string in one validation is answered from the first test (21.7 s before)', () => {
    const $defs: Record<string, object> = { d6: { type: 'string', pattern: '[ab]*a[ab]{12}$' } };
    for (let index = 0; index < 6; index++) $defs[`d${index}`] = { type: 'string', allOf: [{ $ref: `#/$defs/d${index + 1}` }, { $ref: `#/$defs/d${index + 1}` }] };
    const validate = compileSchema({ type: 'object', properties: { a: { $ref: '#/$defs/d0' }, b: { $ref: '#/$defs/d0' } }, $defs });
    const text = 'ab'.repeat(30_000);
    // Padding that the schema never reads gives the chain a budget it stays within: each of the
    // 64 tests of each string ran the automaton over 60,000 characters (5.4 s in the review).
    const pad = Array.from({ length: 15 }, () => 'x'.repeat(60_000));
    expect(validate({ a: `${text}a${'b'.repeat(12)}`, b: `${text}a${'b'.repeat(12)}`, pad })).toBe(true);
    // The answers of one validation are not those of the next.
    expect(validate({ a: 'b'.repeat(60_000), b: `${text}a${'b'.repeat(12)}`, pad })).toBe(false);
    expect(validate({ a: `${text}a${'b'.repeat(12)}`, b: 'b', pad })).toBe(false);
  });

  it('the review: uniqueItems over objects spends what reading them costs (pairwise comparisons ran 16 s)', () => {
    const $defs: Record<string, object> = { d12: { type: 'array', maxItems: 256, uniqueItems: true } };
    for (let index = 0; index < 12; index++) $defs[`d${index}`] = { type: 'array', allOf: [{ $ref: `#/$defs/d${index + 1}` }, { $ref: `#/$defs/d${index + 1}` }] };
    const validate = compileSchema({ type: 'object', properties: { rows: { $ref: '#/$defs/d0' } }, $defs });
    const rows = Array.from({ length: 256 }, (_, index) => [index, ...Array.from({ length: 248 }, () => 0)]);
    expect(thrownBy(() => validate({ rows }))).toBeInstanceOf(ValidationBudgetExceeded);
    const once = compileSchema({ type: 'array', items: { $ref: '#/$defs/row' }, uniqueItems: true, $defs: { row: { type: 'array' } } });
    expect(once(rows)).toBe(true);
    expect(once([...rows, rows[0]])).toBe(false);
  });

  it('leaves a schema without a $ref uncounted (nothing applies to a place twice)', () => {
    const validate = compileSchema({ type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } });
    expect(Object.hasOwn(validate.schema as object, 'x-toolseal-work')).toBe(false);
    expect(validate(Array.from({ length: 10_000 }, () => ({ a: 'x' })))).toBe(true);
  });
});

// Review 2 F6: a misspelt option is refused rather than ignored: `{ format: ['uuid'] }` gave an
// Ajv with every pinned format.
describe('createPinnedAjv: options (review 2 F6)', () => {
  it('refuses a member other than formats, naming it, instead of allowing every pinned format', () => {
    expect(() => createPinnedAjv({ format: ['uuid'] } as unknown as { formats?: PinnedFormat[] })).toThrow(
      new TypeError('createPinnedAjv: unknown option "format" (known options: formats)'),
    );
    expect(() => createPinnedAjv({ formats: ['uuid'] }).compile({ type: 'string', format: 'email' })).toThrow(/unknown format/);
    expect(createPinnedAjv({}).compile({ type: 'string', format: 'email' })('a@example.com')).toBe(true);
  });

  it('refuses options that are not an object', () => {
    for (const options of [null, 'uuid', ['uuid']]) {
      expect(() => createPinnedAjv(options as unknown as { formats?: PinnedFormat[] }), String(options)).toThrow(/createPinnedAjv: options must be an object/);
    }
  });
});
