import type { ParseToolCallsOutcome, RawArguments, ToolCall } from '@toolseal/contracts';
import { checkError } from '@toolseal/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAdapterIdentity } from './create-adapter-identity.js';
import { createToolCallCollector, privateArgumentsOf } from './create-tool-call-collector.js';
import { fakeToolCall } from './fake-tool-call.js';
import { resolveToolCallLimits, type ToolCallLimitOptions } from './resolve-tool-call-limits.js';
import { DEFAULT_JSON_LIMITS, parseUntrustedJson } from '@toolseal/guard';
import { holdsUnsafeInteger } from './holds-unsafe-integer.js';
import { jsonWithLargeNumbers } from './__fixtures__/json-with-large-numbers.js';

const identity = createAdapterIdentity('acme', 'chat', 'acme-chat-v1');

function text(json: string): RawArguments {
  return { format: 'json_text', text: json };
}

function value(input: unknown): RawArguments {
  return { format: 'json_value', value: input };
}

/** Feeds `calls` to one collector for response `resp_1`, stopping at the first rejection, as an adapter does. */
function collect(
  calls: ReadonlyArray<readonly [unknown, unknown, RawArguments]>,
  options: ToolCallLimitOptions = {},
): ParseToolCallsOutcome {
  const collector = createToolCallCollector(identity, 'resp_1', resolveToolCallLimits(options));
  for (const [callId, toolName, rawArguments] of calls) {
    const rejection = collector.add(callId, toolName, rawArguments);
    if (rejection !== null) return rejection;
  }
  return collector.finish();
}

function expectRejected(outcome: ParseToolCallsOutcome, code: string, rule: string): void {
  expect(outcome.ok).toBe(false);
  if (outcome.ok) return;
  expect(checkError(outcome.error).ok).toBe(true);
  expect(outcome.error.code).toBe(code);
  expect(outcome.error.reasons).toEqual([{ field: '', rule }]);
}


describe('createToolCallCollector', () => {
  it('stamps every call with the adapter identity and the response id, in the order added', () => {
    const outcome = collect([['c1', 'get_order', text('{"order_id":"A"}')], ['c2', 'refund', value({ amount: 5 })]]);
    expect(outcome).toEqual({
      ok: true,
      response_id: 'resp_1',
      calls: [
        fakeToolCall({ call_id: 'c1', tool_name: 'get_order', arguments: text('{"order_id":"A"}') }),
        fakeToolCall({ call_id: 'c2', tool_name: 'refund', arguments: value({ amount: 5 }) }),
      ],
    });
    expect(outcome.ok && outcome.calls.map((call) => [call.provider, call.api_family, call.adapter_revision, call.response_id])).toEqual([
      ['acme', 'chat', 'acme-chat-v1', 'resp_1'],
      ['acme', 'chat', 'acme-chat-v1', 'resp_1'],
    ]);
  });

  it('gives no calls for a response without any', () => {
    expect(collect([])).toEqual({ ok: true, response_id: 'resp_1', calls: [] });
  });

  it('refuses a repeated call id', () => {
    expectRejected(collect([['c1', 'a', text('{}')], ['c1', 'b', text('{}')]]), 'MALFORMED_TOOL_CALL', 'duplicate_call_id');
  });

  it.each([undefined, null, ''])('refuses a missing call id (%j)', (callId) => {
    expectRejected(collect([[callId, 'a', text('{}')]]), 'MALFORMED_TOOL_CALL', 'missing_call_id');
  });

  it.each([undefined, null, ''])('refuses a missing or empty name (%j)', (toolName) => {
    expectRejected(collect([['c1', toolName, text('{}')]]), 'MALFORMED_TOOL_CALL', 'empty_tool_name');
  });

  it.each([
    ['a non-string call id', 7, 'a'],
    ['a call id over 256 characters', 'c'.repeat(257), 'a'],
    ['a call id with a lone surrogate', 'call_\ud800', 'a'],
    ['a non-string name', 'c1', ['a']],
    ['a name over 256 characters', 'c1', 'n'.repeat(257)],
    ['a name with a lone surrogate', 'c1', 'get_\udc00'],
    // The stores refuse NUL in an id: such a call must never run (it could not be audited).
    ['a call id with NUL', 'call_\u0000x', 'a'],
    ['a call id with a C0 control', 'call_\u001b[31m', 'a'],
    ['a call id with DEL', 'call_\u007f', 'a'],
    ['a call id with a C1 control', 'call_\u0085', 'a'],
    ['a name with NUL', 'c1', 'get_order\u0000'],
    ['a name with a line feed', 'c1', 'get_order\nsend_email'],
    // Review: ids and names the audit log would show as something else.
    ['a call id with a right-to-left override', 'call_\u202e1_llac', 'a'],
    ['a call id with a zero-width space', 'call\u200b_1', 'a'],
    ['a name with a zero-width joiner', 'c1', 'get\u200d_order'],
    ['a name with a byte order mark', 'c1', '\ufeffget_order'],
    ['a name with a line separator', 'c1', 'get_order\u2028send_email'],
    ['a name with a bidirectional isolate', 'c1', 'get_order\u2066x\u2069'],
    // Review 2: ids and names shown blank, which read as `call_1` and `kit_write` in the log.
    ['a call id ending in a braille pattern blank', 'call_1\u2800', 'a'],
    ['a call id ending in a no-break space', 'call_1\u00a0', 'a'],
    ['a call id ending in an ideographic space', 'call_1\u3000', 'a'],
    ['a call id ending in a space', 'call_1 ', 'a'],
    ['a call id with a combining mark', 'call_1\u0301', 'a'],
    ['a name ending in a braille pattern blank', 'c1', 'kit_write\u2800'],
    ['a name with an Ogham space mark', 'c1', 'kit\u1680write'],
    ['a name with a Hangul filler', 'c1', 'kit_write\u3164'],
    // Review 5 (L1): only printable ASCII (no space) is display-safe; every provider grammar is ASCII.
    ['a call id ending in a private-use character (printed as call_1)', 'call_1\ue000', 'a'],
    ['a call id ending in a noncharacter', 'call_1\uffff', 'a'],
    ['a call id with U+FFFC', 'call_1\ufffc', 'a'],
    ['a call id with an interlinear annotation', 'call_1\ufff9x\ufffay\ufffb', 'a'],
    ['a call id with U+0600 ARABIC NUMBER SIGN', 'call_\u0600123', 'a'],
    ['a call id with a right-to-left letter', '\u05d0_12_34', 'a'],
    ['a name with a private-use character', 'c1', 'kit_write\ue000'],
    ['a name with a right-to-left letter', 'c1', 'kit_write_\u05d0'],
    ['a name with a Cyrillic look-alike', 'c1', 'kit_wr\u0456te'],
    ['a name with a precomposed letter', 'c1', 'caf\u00e9'],
  ])('refuses %s as a malformed response', (_label, callId, toolName) => {
    expectRejected(collect([[callId, toolName, text('{}')]]), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it('accepts ids and names exactly at 256 characters', () => {
    expect(collect([['c'.repeat(256), 'n'.repeat(256), text('{}')]]).ok).toBe(true);
  });

  it('refuses more than 64 calls by default, and accepts 64', () => {
    const calls = (count: number) => Array.from({ length: count }, (_, index) => [`c${index}`, 'a', text('{}')] as const);
    expect(collect(calls(64)).ok).toBe(true);
    expectRejected(collect(calls(65)), 'MALFORMED_TOOL_CALL', 'too_many_calls');
  });

  it('honours a configured maxCalls', () => {
    const calls = [['c1', 'a', text('{}')], ['c2', 'a', text('{}')], ['c3', 'a', text('{}')]] as const;
    expect(collect(calls.slice(0, 2), { maxCalls: 2 }).ok).toBe(true);
    expectRejected(collect(calls, { maxCalls: 2 }), 'MALFORMED_TOOL_CALL', 'too_many_calls');
  });

  describe('JSON text arguments', () => {
    it('refuses text over 1 MiB of UTF-8 and accepts exactly 1 MiB', () => {
      const exactly = `"${'x'.repeat(1_048_574)}"`;
      expect(collect([['c1', 'a', text(exactly)]]).ok).toBe(true);
      expectRejected(collect([['c1', 'a', text(`${exactly} `)]]), 'INVALID_ARGUMENTS', 'max_bytes');
    });

    it('counts UTF-8 bytes, not UTF-16 code units', () => {
      // Two euro signs: 2 code units, 6 bytes; plus the quotes: 8 bytes.
      expect(collect([['c1', 'a', text('"€€"')]], { maxArgumentBytes: 8 }).ok).toBe(true);
      expectRejected(collect([['c1', 'a', text('"€€€"')]], { maxArgumentBytes: 8 }), 'INVALID_ARGUMENTS', 'max_bytes');
    });

    it('does not parse or judge the text: malformed JSON is the dispatcher’s to refuse per call', () => {
      expect(collect([['c1', 'a', text('{"a":1,"a":2,"__proto__":{}')]]).ok).toBe(true);
    });
  });

  describe('parsed value arguments', () => {
    it('refuses a value over maxArgumentBytes of serialized JSON, and accepts it at the limit', () => {
      // {"k":"0123456789abc"} is 21 bytes; one character less is 20.
      expect(collect([['c1', 'a', value({ k: '0123456789ab' })]], { maxArgumentBytes: 20 }).ok).toBe(true);
      expectRejected(
        collect([['c1', 'a', value({ k: '0123456789abc' })]], { maxArgumentBytes: 20 }),
        'INVALID_ARGUMENTS',
        'max_bytes',
      );
    });

    it('refuses a value over 1 MiB by default', () => {
      const big = { text: Array.from({ length: 17 }, () => 'x'.repeat(65_000)) };
      expectRejected(collect([['c1', 'a', value(big)]]), 'INVALID_ARGUMENTS', 'max_bytes');
    });

    it('refuses a value nested deeper than the default limits', () => {
      let deep: Record<string, unknown> = {};
      for (let level = 0; level < 40; level++) deep = { next: deep };
      expectRejected(collect([['c1', 'a', value(deep)]]), 'INVALID_ARGUMENTS', 'max_depth');
    });

    it.each([
      ['max_depth', { maxDepth: 3 }, { a: { b: { c: { d: 1 } } } }],
      ['max_array_items', { maxArrayItems: 2 }, { list: [1, 2, 3] }],
      ['max_object_keys', { maxObjectKeys: 2 }, { a: 1, b: 2, c: 3 }],
      ['max_string_length', { maxStringLength: 4 }, { a: 'abcde' }],
      ['max_total_nodes', { maxTotalNodes: 3 }, { a: 1, b: 2, c: 3 }],
    ])('refuses a value breaking %s of the configured limits', (rule, argumentLimits, input) => {
      expectRejected(collect([['c1', 'a', value(input)]], { argumentLimits }), 'INVALID_ARGUMENTS', rule);
    });

    it('leaves content rules (a __proto__ key, a lone surrogate) to the dispatcher, which refuses that one call', () => {
      const hostile = JSON.parse('{"__proto__":{"admin":true},"order_id":"x"}') as unknown;
      const outcome = collect([['c1', 'a', value(hostile)], ['c2', 'a', value({ note: 'lone \ud800' })], ['c3', 'a', value({})]]);
      expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['c1', 'c2', 'c3']);
    });

    describe('values JSON cannot express', () => {
      // What an SDK's JSON.parse can never make: not JSON at all, so never accepted, and never a
      // place behind which oversized arguments pass unmeasured (the guard stops there).
      const blobs = Array.from({ length: 40 }, () => 'x'.repeat(60_000)); // 2.4 MB of strings
      const NOT_JSON: ReadonlyArray<[string, () => Record<string, unknown>]> = [
        ['undefined', () => ({ u: undefined })],
        ['a Date', () => ({ d: new Date(0) })],
        ['a BigInt', () => ({ b: 1n })],
        ['a function', () => ({ f: () => 1 })],
        ['an accessor', () => Object.defineProperty({}, 'g', { get: () => 1, enumerable: true })],
        ['a symbol key', () => ({ [Symbol('s')]: 1 })],
      ];

      /** `target` with the own properties of `source` defined on it as they are (accessors stay accessors). */
      function extend(target: object, source: object): Record<string, unknown> {
        return Object.defineProperties(target, Object.getOwnPropertyDescriptors(source)) as Record<string, unknown>;
      }

      it.each(NOT_JSON)('refuses %s placed before 2.4 MB of arguments (INVALID_ARGUMENTS, non_json_value)', (_label, make) => {
        const input = extend(make(), { blobs });
        expectRejected(collect([['c1', 'a', value(input)]]), 'INVALID_ARGUMENTS', 'non_json_value');
      });

      it.each(NOT_JSON)('refuses %s in arguments of any size: they are not JSON', (_label, make) => {
        expectRejected(collect([['c1', 'a', value({ order_id: 'ORDER-7', nested: [make()] })]]), 'INVALID_ARGUMENTS', 'non_json_value');
      });

      it.each(NOT_JSON)('refuses %s behind a content violation and before 2.4 MB (the guard reports the content rule)', (_label, make) => {
        const first = JSON.parse('{"__proto__":{"admin":true}}') as Record<string, unknown>;
        const input = extend(extend(extend(first, { note: 'lone \ud800', n: Number.POSITIVE_INFINITY }), make()), { blobs });
        expectRejected(collect([['c1', 'a', value(input)]]), 'INVALID_ARGUMENTS', 'non_json_value');
      });

      it.each<[string, unknown]>([
        ['a __proto__ key', JSON.parse('{"__proto__":{"admin":true}}')],
        ['a lone surrogate', { s: '\ud800' }],
        ['Infinity (1e400 after JSON.parse)', JSON.parse('{"n":1e400}')],
      ])('still refuses 2.4 MB behind %s for its size', (_label, first) => {
        const input = Object.assign(first as object, { blobs });
        expectRejected(collect([['c1', 'a', value(input)]]), 'INVALID_ARGUMENTS', 'max_bytes');
      });

      it('refuses with keepArgumentCopies alike', () => {
        const collector = createToolCallCollector(identity, 'resp_1', resolveToolCallLimits(), { keepArgumentCopies: true });
        const outcome = collector.add('c1', 'a', value({ u: undefined, blobs })) ?? collector.finish();
        expectRejected(outcome, 'INVALID_ARGUMENTS', 'non_json_value');
      });

      it('property: arguments over maxArgumentBytes are never accepted, whatever precedes or follows them', () => {
        const oddity = fc.oneof(
          fc.constantFrom<unknown>(undefined, 1n, Number.NaN, Number.POSITIVE_INFINITY, '\ud800', () => 1, Symbol('s')),
          fc.constant(null).map(() => new Date(0)),
          fc.constant(null).map(() => JSON.parse('{"__proto__":{}}') as unknown),
          fc.constant(null).map(() => Object.defineProperty({}, 'g', { get: () => 1, enumerable: true })),
          fc.constant(null).map(() => ({ [Symbol('s')]: 1 })),
          fc.jsonValue({ maxDepth: 2 }),
        );
        fc.assert(
          fc.property(fc.array(oddity, { maxLength: 4 }), fc.array(oddity, { maxLength: 4 }), (before, after) => {
            // Oddities as members beside the blob, which sits in a container the walk reaches last
            // or first: a walk that stops at one of them never measures the blob.
            const input: Record<string, unknown> = {};
            before.forEach((each, index) => (input[`b${index}`] = each));
            input['blob'] = ['x'.repeat(200)];
            after.forEach((each, index) => (input[`a${index}`] = each));
            const outcome = collect([['c1', 'a', value(input)]], { maxArgumentBytes: 150 });
            expect(outcome.ok).toBe(false);
            if (outcome.ok) return;
            expect(checkError(outcome.error).ok).toBe(true);
            expect(outcome.error.code).toBe('INVALID_ARGUMENTS');
            expect(['max_bytes', 'non_json_value']).toContain(outcome.error.reasons[0]?.rule);
          }),
        );
      });
    });
  });

  // Review 2 (06_number_rounding_json_value): Anthropic's and Gemini's SDKs hand over arguments
  // JSON.parse already read, which rounds `9007199254740993` to 9007199254740992 without a word; the
  // call then named another order. OpenAI's text is refused by the dispatcher's guard, per call.
  describe('integers the SDK may have rounded (parsed arguments)', () => {
    const wire = '{"order_id":9007199254740993,"amount":5999.9999999999999}';

    function collectKept(input: unknown): ParseToolCallsOutcome {
      const collector = createToolCallCollector(identity, 'resp_1', resolveToolCallLimits(), { keepArgumentCopies: true });
      return collector.add('c1', 'a', value(input)) ?? collector.finish();
    }

    it('refuses the review arguments as parsed, with or without kept copies, as the guard refuses their text', () => {
      const parsed = JSON.parse(wire) as unknown;
      expect(parsed).toEqual({ order_id: 9007199254740992, amount: 6000 });
      expectRejected(collect([['c1', 'a', value(parsed)]]), 'INVALID_ARGUMENTS', 'non_json_value');
      expectRejected(collectKept(parsed), 'INVALID_ARGUMENTS', 'non_json_value');
      // The same rule the guard applies to the text (the OpenAI path, in the dispatcher).
      expect(parseUntrustedJson(wire)).toEqual({ ok: false, violation: { rule: 'non_json_value', path: '/order_id' } });
      // The whole response: a good call before it does not run either.
      expectRejected(collect([['c1', 'a', value({ order_id: 7 })], ['c2', 'a', value(parsed)]]), 'INVALID_ARGUMENTS', 'non_json_value');
    });

    it.each<[string, unknown]>([
      ['2^53', 2 ** 53],
      ['-(2^53)', -(2 ** 53)],
      ['2^53 + 2', 2 ** 53 + 2],
      ['1e20', 1e20],
      ['Number.MAX_VALUE', Number.MAX_VALUE],
      ['-Number.MAX_VALUE', -Number.MAX_VALUE],
    ])('refuses %s wherever it sits', (_label, number) => {
      for (const input of [{ n: number }, { lines: [{ sku: 'A', qty: 1 }, { sku: 'B', qty: number }] }, { a: [[[[number]]]] }]) {
        expectRejected(collect([['c1', 'a', value(input)]]), 'INVALID_ARGUMENTS', 'non_json_value');
        expectRejected(collectKept(input), 'INVALID_ARGUMENTS', 'non_json_value');
      }
    });

    it('passes safe integers and fractions: a rounded fraction cannot be seen in a parsed value (documented)', () => {
      const input = {
        max: Number.MAX_SAFE_INTEGER,
        min: Number.MIN_SAFE_INTEGER,
        zero: -0,
        price: 5999.99,
        rounded: JSON.parse('5999.9999999999999') as number,
        tiny: 1e-300,
        id_text: '9007199254740993',
      };
      expect(collect([['c1', 'a', value(input)]]).ok).toBe(true);
      expect(collectKept(input).ok).toBe(true);
    });

    it('leaves text arguments to the dispatcher, which refuses the call (the collector does not parse text)', () => {
      expect(collect([['c1', 'a', text(wire)]]).ok).toBe(true);
    });

    it('refuses one behind a content violation, which the dispatcher alone would refuse for the other rule', () => {
      const input = JSON.parse('{"__proto__":{"admin":true},"order_id":9007199254740993}') as unknown;
      expectRejected(collect([['c1', 'a', value(input)]]), 'INVALID_ARGUMENTS', 'non_json_value');
      expect(collect([['c1', 'a', value(JSON.parse('{"__proto__":{"admin":true},"order_id":7}'))]]).ok).toBe(true);
    });

    it('walks 100,000 levels without recursion, within the limits the guard applied', () => {
      const deep = (leaf: unknown) => {
        let input: unknown = leaf;
        for (let level = 0; level < 100_000; level++) input = [input];
        return input;
      };
      const limits = { argumentLimits: { maxDepth: 100_001, maxTotalNodes: 100_001 } };
      expectRejected(collect([['c1', 'a', value(deep(2 ** 53))]], limits), 'INVALID_ARGUMENTS', 'non_json_value');
      expect(collect([['c1', 'a', value(deep(7))]], limits).ok).toBe(true);
    });

    it('refuses an accessor on an array index (host-made) without kept copies: the walk never runs it', () => {
      // The guard reads an array item through a getter; the number walk never does, so it cannot
      // tell what the getter answers (a rounded integer, or another value the next time it runs).
      const input = { lines: Object.defineProperty([1], 0, { get: () => 7, enumerable: true }) };
      expectRejected(collect([['c1', 'a', value(input)]]), 'INVALID_ARGUMENTS', 'non_json_value');
    });

    it('property: a parsed value is refused exactly when it holds an integer beyond 2^53 - 1', () => {
      // NaN and the infinities included: no integers, left to the dispatcher's guard.
      const data = jsonWithLargeNumbers();
      fc.assert(
        fc.property(data, (input) => {
          const outcome = collect([['c1', 'a', value(input)]]);
          if (holdsUnsafeInteger(input)) expectRejected(outcome, 'INVALID_ARGUMENTS', 'non_json_value');
          else expect(outcome.ok).toBe(true);
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('maxCallIdLength', () => {
    it('refuses a call id over the provider maximum it is given, and accepts one at it', () => {
      const limits = resolveToolCallLimits();
      const collector = createToolCallCollector(identity, 'resp_1', limits, { maxCallIdLength: 64 });
      expect(collector.add('c'.repeat(64), 'a', text('{}'))).toBeNull();
      expectRejected(
        createToolCallCollector(identity, 'resp_1', limits, { maxCallIdLength: 64 }).add('c'.repeat(65), 'a', text('{}')) ?? collector.finish(),
        'MALFORMED_TOOL_CALL',
        'malformed_response',
      );
    });

    it.each([0, 257, 1.5, Number.NaN, '64'])('throws a TypeError for a maxCallIdLength of %j: a bug in the adapter', (maxCallIdLength) => {
      expect(() =>
        createToolCallCollector(identity, 'resp_1', resolveToolCallLimits(), { maxCallIdLength: maxCallIdLength as number }),
      ).toThrow(new TypeError('maxCallIdLength must be an integer from 1 to 256'));
    });
  });

  describe('private argument copies (keepArgumentCopies, privateArgumentsOf)', () => {
    function collectKept(input: unknown): ParseToolCallsOutcome {
      const collector = createToolCallCollector(identity, 'resp_1', resolveToolCallLimits(), { keepArgumentCopies: true });
      return collector.add('c1', 'a', value(input)) ?? collector.finish();
    }

    it('keeps a copy taken when the call was parsed, never the host object: later changes do not show', () => {
      const sdkArguments = { order_id: 'ORDER-C7', lines: [{ line_id: 'LINE-1' }] };
      const outcome = collectKept(sdkArguments);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      const call = outcome.calls[0]!;
      // The call carries the kept copy (equal to the SDK's value as parsed), for the dispatcher.
      expect(call.arguments).toEqual(value(sdkArguments));
      sdkArguments.lines[0]!.line_id = 'changed after parse';
      (sdkArguments as Record<string, unknown>)['injected'] = true;
      const copy = privateArgumentsOf(call, DEFAULT_JSON_LIMITS);
      expect(copy).toEqual({ order_id: 'ORDER-C7', lines: [{ line_id: 'LINE-1' }] });
      expect(copy).not.toBe(sdkArguments);
    });

    it('keeps the copy where nothing shows it: the call has only its own members, and a copy of the call has no kept copy', () => {
      const outcome = collectKept({ order_id: 'ORDER-C7' });
      if (!outcome.ok) throw new Error('refused');
      const call = outcome.calls[0]!;
      expect(Reflect.ownKeys(call).sort()).toEqual(['adapter_revision', 'api_family', 'arguments', 'call_id', 'provider', 'response_id', 'tool_name']);
      expect(Object.isFrozen(call)).toBe(true);
      // A rebuilt call (as from storage) is copied by the guard's walk under the limits instead.
      const rebuilt = { ...call, arguments: { format: 'json_value' as const, value: { order_id: 'ORDER-C7', extra: Number.POSITIVE_INFINITY } } };
      expect(privateArgumentsOf(rebuilt, DEFAULT_JSON_LIMITS)).toBeUndefined();
      expect(privateArgumentsOf(call, DEFAULT_JSON_LIMITS)).toEqual({ order_id: 'ORDER-C7' });
    });

    function isDeeplyFrozen(input: unknown): boolean {
      if (typeof input !== 'object' || input === null) return true;
      return Object.isFrozen(input) && Object.values(input).every(isDeeplyFrozen);
    }

    function keptCall(input: unknown): ToolCall {
      const outcome = collectKept(input);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) throw new Error('refused');
      return outcome.calls[0]!;
    }

    const argumentsOf = (call: ToolCall): unknown => (call.arguments.format === 'json_value' ? call.arguments.value : undefined);

    // Old code: the kept copy was a plain mutable object (isDeeplyFrozen false).
    it('keeps a deeply frozen copy, which the call carries instead of the host object', () => {
      const sdkArguments = { order_id: 'ORDER-C7', lines: [{ line_id: 'LINE-1', tags: ['a'] }], note: null };
      const call = keptCall(sdkArguments);
      const carried = argumentsOf(call);
      expect(carried).not.toBe(sdkArguments);
      expect(isDeeplyFrozen(carried)).toBe(true);
      // The host's object is never frozen.
      expect(Object.isFrozen(sdkArguments)).toBe(false);
      expect(Object.isFrozen(sdkArguments.lines[0])).toBe(false);
    });

    // Old code: the assignments succeeded, and privateArgumentsOf returned the changed object.
    it('refuses changes through call.arguments.value (strict mode: TypeError), so the copy handed out stays the parsed arguments', () => {
      const call = keptCall({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
      const carried = argumentsOf(call) as { amount: number; lines: Array<{ qty: number }>; added?: boolean };
      expect(() => {
        carried.amount = 500000;
      }).toThrow(TypeError);
      expect(() => {
        carried.lines[0]!.qty = 9;
      }).toThrow(TypeError);
      expect(() => {
        carried.lines.push({ qty: 2 });
      }).toThrow(TypeError);
      expect(() => {
        carried.added = true;
      }).toThrow(TypeError);
      expect(carried).toEqual({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
      expect(privateArgumentsOf(call, DEFAULT_JSON_LIMITS)).toEqual({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
    });

    // Old code: every call returned the kept object itself, the one the call carries.
    it('hands out a fresh, unfrozen copy on every call: changing one changes neither the call nor the next copy', () => {
      const call = keptCall({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
      const first = privateArgumentsOf(call, DEFAULT_JSON_LIMITS) as { amount: number; lines: Array<{ qty: number }> };
      const second = privateArgumentsOf(call, DEFAULT_JSON_LIMITS) as { amount: number; lines: Array<{ qty: number }> };
      expect(first).not.toBe(argumentsOf(call));
      expect(first).not.toBe(second);
      expect(first.lines).not.toBe(second.lines);
      expect(Object.isFrozen(first)).toBe(false);
      expect(Object.isFrozen(first.lines[0])).toBe(false);
      first.amount = 7;
      first.lines[0]!.qty = 9;
      expect(argumentsOf(call)).toEqual({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
      expect(second).toEqual({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
      expect(privateArgumentsOf(call, DEFAULT_JSON_LIMITS)).toEqual({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
    });

    // Old code: the assignments succeeded, and the dispatcher would have run 500000 while the
    // continuation echoed 5.
    it('freezes the call and its arguments wrapper: the host cannot replace the arguments the echo shows', () => {
      const call = keptCall({ item_id: 'ITEM-1', amount: 5 });
      expect(Object.isFrozen(call)).toBe(true);
      expect(Object.isFrozen(call.arguments)).toBe(true);
      expect(() => {
        call.arguments = value({ item_id: 'ITEM-1', amount: 500000 });
      }).toThrow(TypeError);
      expect(() => {
        (call.arguments as { value: unknown }).value = { item_id: 'ITEM-1', amount: 500000 };
      }).toThrow(TypeError);
      expect(argumentsOf(call)).toEqual({ item_id: 'ITEM-1', amount: 5 });
      expect(privateArgumentsOf(call, DEFAULT_JSON_LIMITS)).toEqual({ item_id: 'ITEM-1', amount: 5 });
    });

    it('keeps scalar and array arguments too, frozen, and hands out copies of them', () => {
      const list = keptCall([{ a: 1 }, 2]);
      expect(isDeeplyFrozen(argumentsOf(list))).toBe(true);
      const copy = privateArgumentsOf(list, DEFAULT_JSON_LIMITS);
      expect(copy).toEqual([{ a: 1 }, 2]);
      expect(copy).not.toBe(argumentsOf(list));
      expect(privateArgumentsOf(keptCall('text'), DEFAULT_JSON_LIMITS)).toBe('text');
      expect(privateArgumentsOf(keptCall(null), DEFAULT_JSON_LIMITS)).toBeNull();
    });

    // Old code and new: without keepArgumentCopies the call carries the host's object, untouched
    // (as the OpenAI and Anthropic adapters' calls do).
    it('without keepArgumentCopies, carries the host object itself and never freezes it', () => {
      const sdkArguments = { order_id: 'ORDER-C7', lines: [{ line_id: 'LINE-1' }] };
      const outcome = collect([['c1', 'a', value(sdkArguments)]]);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(argumentsOf(outcome.calls[0]!)).toBe(sdkArguments);
      expect(Object.isFrozen(sdkArguments)).toBe(false);
      expect(Object.isFrozen(sdkArguments.lines)).toBe(false);
    });

    it('copies the arguments of a call it did not keep (rebuilt by the host), never returning the host object', () => {
      const call = fakeToolCall({ arguments: value({ order_id: 'ORDER-C7' }) });
      const copy = privateArgumentsOf(call, DEFAULT_JSON_LIMITS);
      expect(copy).toEqual({ order_id: 'ORDER-C7' });
      expect(copy).not.toBe(call.arguments.format === 'json_value' && call.arguments.value);
    });

    it.each<[string, unknown]>([
      ['Infinity (1e400 after JSON.parse)', JSON.parse('{"n":1e400}')],
      ['a __proto__ key', JSON.parse('{"__proto__":{"admin":true}}')],
    ])('has no copy of arguments the dispatcher will refuse for content: %s', (_label, input) => {
      const outcome = collectKept(input);
      expect(outcome.ok).toBe(true);
      expect(outcome.ok && privateArgumentsOf(outcome.calls[0]!, DEFAULT_JSON_LIMITS)).toBeUndefined();
    });

    it('has no copy of host-rebuilt arguments that are not JSON data (an accessor)', () => {
      const call = fakeToolCall({ arguments: value(Object.defineProperty({}, 'g', { get: () => 1, enumerable: true })) });
      expect(privateArgumentsOf(call, DEFAULT_JSON_LIMITS)).toBeUndefined();
    });

    it('has no copy of text arguments', () => {
      expect(privateArgumentsOf(fakeToolCall(), DEFAULT_JSON_LIMITS)).toBeUndefined();
    });
  });

  it('property: accepts any distinct well-formed calls within the limits, unchanged and in order', () => {
    // Printable ASCII; the space reads as nothing in a log and is refused, so it is left out.
    const name = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }).filter((each) => !each.includes(' '));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/), name, fc.jsonValue({ maxDepth: 3 }).filter((each) => !holdsUnsafeInteger(each))), {
          maxLength: 10,
          selector: ([callId]) => callId,
        }),
        (entries) => {
          const outcome = collect(entries.map(([callId, toolName, input]) => [callId, toolName, value(input)] as const));
          expect(outcome.ok).toBe(true);
          if (!outcome.ok) return;
          expect(outcome.calls.map((call) => [call.call_id, call.tool_name, call.arguments])).toEqual(
            entries.map(([callId, toolName, input]) => [callId, toolName, value(input)]),
          );
        },
      ),
    );
  });

  it('property: never throws, and every refusal is a catalogued error', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.anything(), fc.anything(), fc.anything()), { maxLength: 5 }), (entries) => {
        const outcome = collect(entries.map(([callId, toolName, input]) => [callId, toolName, value(input)] as const));
        if (!outcome.ok) {
          expect(checkError(outcome.error).ok).toBe(true);
          expect(['MALFORMED_TOOL_CALL', 'INVALID_ARGUMENTS']).toContain(outcome.error.code);
        }
      }),
      { numRuns: 300 },
    );
  });
});
