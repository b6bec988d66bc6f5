// Provider-specific parsing only: the rules every adapter shares (ids, names, call count,
// argument size) are tested once in @toolseal/adapter-core and run on this adapter by the
// conformance kit (conformance.test.ts).
import { readFileSync } from 'node:fs';
import {
  assertParseOutcomeCatalogued,
  assertParseRefused,
  createLyingLengthArray,
  createObjectLength,
  NON_INTEGER_LENGTHS,
} from '@toolseal/adapter-testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_OPENAI_CALL_ID_LENGTH, MAX_RESPONSE_OUTPUT_ITEMS, type OpenAIResponsesResponse } from './openai-responses-api.js';
import { parseOpenAIResponsesToolCalls } from './parse-openai-responses-tool-calls.js';

function fixture(name: string): OpenAIResponsesResponse {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as OpenAIResponsesResponse;
}

function functionCall(callId: unknown, name: unknown, text: unknown, extra: Record<string, unknown> = {}) {
  return { type: 'function_call', id: `fc_${String(callId)}`, call_id: callId, name, arguments: text, status: 'completed', ...extra };
}

function responseWith(output: unknown[], id: unknown = 'resp_1'): OpenAIResponsesResponse {
  return { id, output } as unknown as OpenAIResponsesResponse;
}

describe('parseOpenAIResponsesToolCalls: fixtures', () => {
  it('parses a single function_call with its text arguments untouched', () => {
    const outcome = parseOpenAIResponsesToolCalls(fixture('openai-single.json'));
    expect(outcome).toEqual({
      ok: true,
      response_id: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
      calls: [
        {
          provider: 'openai',
          api_family: 'responses',
          adapter_revision: 'openai-responses-v1',
          response_id: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
          call_id: 'call_Q1w2E3r4T5y6U7i8O9p0',
          tool_name: 'get_order',
          arguments: { format: 'json_text', text: '{"order_id":"ORDER-C7"}' },
        },
      ],
    });
  });

  it('keeps parallel calls in output order, each with its own call id', () => {
    const outcome = parseOpenAIResponsesToolCalls(fixture('openai-parallel.json'));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.calls.map((call) => [call.call_id, call.tool_name])).toEqual([
      ['call_A1s2D3f4G5h6J7k8L9z0', 'get_order'],
      ['call_Z9x8C7v6B5n4M3q2W1e0', 'get_order'],
      ['call_R4t5Y6u7I8o9P0a1S2d3', 'create_refund_draft'],
    ]);
    expect(outcome.calls[2]?.arguments).toEqual({
      format: 'json_text',
      text: '{"order_id":"ORDER-C7","amount":6000,"unit":"CREDIT_A"}',
    });
  });

  it('ignores reasoning and message items, including instructions planted in text', () => {
    const outcome = parseOpenAIResponsesToolCalls(fixture('openai-mixed-text.json'));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.calls.map((call) => call.call_id)).toEqual(['call_F5g6H7j8K9l0Z1x2C3v4']);
  });

  it('accepts a call made directly by the model: no caller, a null one or { type: "direct" }', () => {
    const outcome = parseOpenAIResponsesToolCalls(
      responseWith([
        functionCall('call_1', 'a', '{}'),
        functionCall('call_2', 'a', '{}', { caller: null }),
        functionCall('call_3', 'a', '{}', { caller: { type: 'direct' } }),
      ]),
    );
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.calls.map((call) => call.call_id)).toEqual(['call_1', 'call_2', 'call_3']);
  });

  it('returns no calls for a response without function_call items', () => {
    expect(parseOpenAIResponsesToolCalls(responseWith([{ type: 'message', content: [] }]))).toEqual({
      ok: true,
      response_id: 'resp_1',
      calls: [],
    });
  });
});

describe('parseOpenAIResponsesToolCalls: refusals', () => {
  it.each([
    ['arguments that are not text', functionCall('call_1', 'a', { order_id: 'x' })],
    ['missing arguments', functionCall('call_1', 'a', undefined)],
    ['an unfinished call', functionCall('call_1', 'a', '{"order_id":"ORD', { status: 'incomplete' })],
    ['an in-progress call', functionCall('call_1', 'a', '{}', { status: 'in_progress' })],
    ['a namespaced call', functionCall('call_1', 'a', '{}', { namespace: 'crm' })],
    ['a call made by a program', functionCall('call_1', 'a', '{}', { caller: { type: 'program', caller_id: 'ci_1' } })],
    ['a caller of an unknown kind', functionCall('call_1', 'a', '{}', { caller: { type: 'agent' } })],
    ['a caller that is not an object', functionCall('call_1', 'a', '{}', { caller: 'direct' })],
    ['an output item that is not an object', null],
  ])('refuses %s as a malformed response', (_label, item) => {
    assertParseRefused(
      parseOpenAIResponsesToolCalls(responseWith([item])),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  it.each([
    ['null', null],
    ['a number', 42],
    ['a string', 'resp_1'],
    ['an array', []],
    ['an empty object', {}],
    ['a missing id', { output: [] }],
    ['an empty id', { id: '', output: [] }],
    ['an id over 256 characters', { id: 'r'.repeat(257), output: [] }],
    ['an output that is not an array', { id: 'resp_1', output: { 0: functionCall('c', 'a', '{}') } }],
  ])('refuses %s as a malformed response', (_label, response) => {
    assertParseRefused(
      parseOpenAIResponsesToolCalls(response as unknown as OpenAIResponsesResponse),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  it.each(['incomplete', 'in_progress', 'queued', 'failed', 'cancelled', null, 7])(
    'refuses a function call in a response whose status is %s, even a completed item',
    (status) => {
      const response = { id: 'resp_1', status, output: [functionCall('call_1', 'a', '{"order_id":"ORD')] };
      assertParseRefused(
        parseOpenAIResponsesToolCalls(response as unknown as OpenAIResponsesResponse),
        'MALFORMED_TOOL_CALL',
        'malformed_response',
      );
    },
  );

  it('accepts a function call in a completed response, or one without a status', () => {
    for (const extra of [{ status: 'completed' }, {}]) {
      const response = { id: 'resp_1', ...extra, output: [functionCall('call_1', 'a', '{}')] };
      expect(parseOpenAIResponsesToolCalls(response as unknown as OpenAIResponsesResponse).ok).toBe(true);
    }
  });

  it('gives no calls, not a refusal, for an unfinished response without function calls', () => {
    const response = { id: 'resp_1', status: 'incomplete', output: [{ type: 'message', status: 'incomplete', content: [] }] };
    expect(parseOpenAIResponsesToolCalls(response as unknown as OpenAIResponsesResponse)).toEqual({
      ok: true,
      response_id: 'resp_1',
      calls: [],
    });
  });

  it.each([
    ['over 256 characters', 'f'.repeat(257)],
    ['10 MB long', 'f'.repeat(10_000_000)],
    ['with NUL', 'fc_\u0000'],
    ['with a control character', 'fc_\u001b[0m'],
    ['with a lone surrogate', 'fc_\ud800'],
    ['ending in a no-break space (review 2)', 'fc_1\u00a0'],
    ['ending in a braille pattern blank (review 2)', 'fc_1\u2800'],
    ['empty', ''],
    ['not a string', { evil: 1 }],
  ])('refuses an item id %s: it is echoed back in a stateless continuation', (_label, id) => {
    assertParseRefused(
      parseOpenAIResponsesToolCalls(responseWith([functionCall('call_1', 'a', '{}', { id })])),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  // The official OpenAPI schema (spec 2.3.0) caps `FunctionCallOutputItemParam.call_id` at 64
  // characters: a call with a longer id could run, but its result could never be sent back.
  it('refuses a call id over 64 characters before anything runs, and accepts one of exactly 64', () => {
    expect(MAX_OPENAI_CALL_ID_LENGTH).toBe(64);
    const at = `call_${'a'.repeat(59)}`;
    expect(parseOpenAIResponsesToolCalls(responseWith([functionCall(at, 'a', '{}')]))).toMatchObject({
      ok: true,
      calls: [{ call_id: at }],
    });
    for (const callId of [`${at}b`, `call_${'a'.repeat(95)}`, 'c'.repeat(256)]) {
      assertParseRefused(
        parseOpenAIResponsesToolCalls(responseWith([functionCall('call_ok', 'a', '{}'), functionCall(callId, 'a', '{}')])),
        'MALFORMED_TOOL_CALL',
        'malformed_response',
      );
    }
  });

  // Review 2 (08_blank_lookalike_ids): this response parsed into calls the audit log showed as
  // `[call_1] kit_write`, `[call_1⠀] kit_write` (amount 9999) and `[call_1　] kit_write⠀`.
  it('refuses a response whose call ids or names differ only by a character shown blank', () => {
    const calls = [
      // Item ids are plain, so that the call ids and names themselves are what is refused.
      functionCall('call_1', 'kit_write', '{"item_id":"A","amount":1}', { id: 'fc_1' }),
      functionCall('call_1\u2800', 'kit_write', '{"item_id":"A","amount":9999}', { id: 'fc_2' }),
      functionCall('call_1\u3000', 'kit_write\u2800', '{}', { id: 'fc_3' }),
    ];
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith(calls)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    for (const [callId, name] of [['call_1\u00a0', 'kit_write'], ['call_2', 'kit_write\u3164'], ['call_3', 'kit_write\u0301']]) {
      assertParseRefused(
        parseOpenAIResponsesToolCalls(
          responseWith([functionCall('call_ok', 'kit_write', '{}', { id: 'fc_ok' }), functionCall(callId, name, '{}', { id: 'fc_x' })]),
        ),
        'MALFORMED_TOOL_CALL',
        'malformed_response',
      );
    }
    expect(parseOpenAIResponsesToolCalls(responseWith([calls[0]!])).ok).toBe(true);
  });

  it('keeps 256 characters for the response id and the item id, which the schema does not bound', () => {
    const response = { id: `resp_${'r'.repeat(251)}`, output: [functionCall('call_1', 'a', '{}', { id: `fc_${'f'.repeat(253)}` })] };
    expect(parseOpenAIResponsesToolCalls(response as unknown as OpenAIResponsesResponse).ok).toBe(true);
  });

  it('refuses two calls with one item id (a stateless continuation echoes them, and OpenAI takes no two alike)', () => {
    const twice = responseWith([functionCall('call_1', 'a', '{}', { id: 'fc_same' }), functionCall('call_2', 'a', '{}', { id: 'fc_same' })]);
    assertParseRefused(parseOpenAIResponsesToolCalls(twice), 'MALFORMED_TOOL_CALL', 'malformed_response');
    const apart = responseWith([functionCall('call_1', 'a', '{}'), functionCall('call_2', 'a', '{}')]);
    expect(parseOpenAIResponsesToolCalls(apart).ok).toBe(true);
  });

  it('accepts an item without an id', () => {
    const { id: _id, ...withoutId } = functionCall('call_1', 'a', '{}');
    expect(parseOpenAIResponsesToolCalls(responseWith([withoutId])).ok).toBe(true);
  });

  it(`refuses an output of more than ${MAX_RESPONSE_OUTPUT_ITEMS} items before reading them`, () => {
    const output: unknown[] = [functionCall('call_1', 'a', '{}')];
    output.length = 2 ** 32 - 1;
    const started = performance.now();
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith(output)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(performance.now() - started).toBeLessThan(100);
    const many = Array.from({ length: MAX_RESPONSE_OUTPUT_ITEMS + 1 }, () => ({ type: 'message' }));
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith(many)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(parseOpenAIResponsesToolCalls(responseWith(many.slice(1))).ok).toBe(true);
  });

  it('does not parse or judge the argument text: malformed JSON is the dispatcher’s to refuse per call', () => {
    const outcome = parseOpenAIResponsesToolCalls(responseWith([functionCall('c1', 'a', '{"a":1,"a":2,"__proto__":{}')]));
    expect(outcome.ok).toBe(true);
  });
});

describe('parseOpenAIResponsesToolCalls: hostile objects', () => {
  it('never runs a getter and treats accessor fields as missing', () => {
    let ran = false;
    const item = { type: 'function_call', call_id: 'c1', arguments: '{}' };
    Object.defineProperty(item, 'name', {
      enumerable: true,
      get: () => {
        ran = true;
        return 'get_order';
      },
    });
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith([item])), 'MALFORMED_TOOL_CALL', 'empty_tool_name');
    expect(ran).toBe(false);
  });

  /** `item` with `key` replaced by an own getter answering `answer`; records whether it ran. */
  function withGetter(item: Record<string, unknown>, key: string, answer: unknown): { item: object; ran: () => boolean } {
    let ran = false;
    const copy: Record<string, unknown> = { ...item };
    delete copy[key];
    Object.defineProperty(copy, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        ran = true;
        return answer;
      },
    });
    return { item: copy, ran: () => ran };
  }

  it.each<[string, unknown]>([
    ['status', 'incomplete'],
    ['status', 'completed'],
    ['namespace', 'crm'],
    ['caller', { type: 'program', caller_id: 'ci_1' }],
    ['caller', { type: 'direct' }],
    ['type', 'function_call'],
    ['id', 'fc_1'],
  ])('refuses an item whose %s is a getter (answering %j), without running it', (key, answer) => {
    const { item, ran } = withGetter(functionCall('call_1', 'a', '{}'), key, answer);
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith([item])), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(ran()).toBe(false);
  });

  it('refuses a response whose status is a getter, without running it', () => {
    let ran = false;
    const response = { id: 'resp_1', output: [functionCall('call_1', 'a', '{}')] };
    Object.defineProperty(response, 'status', {
      enumerable: true,
      get: () => {
        ran = true;
        return 'incomplete';
      },
    });
    assertParseRefused(parseOpenAIResponsesToolCalls(response), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(ran).toBe(false);
  });

  it.each(['status', 'namespace', 'caller', 'type'])('refuses an item whose %s comes only from its prototype', (key) => {
    const full: Record<string, unknown> = functionCall('call_1', 'a', '{}', { namespace: 'crm', caller: { type: 'program' } });
    const { [key]: inherited, ...own } = full;
    const item: unknown = Object.assign(Object.create({ [key]: inherited }) as object, own);
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith([item])), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it('refuses an item of a class whose status is a getter on its prototype', () => {
    class Item {
      get status(): string {
        return 'in_progress';
      }
    }
    const { status: _status, ...own } = functionCall('call_1', 'a', '{}');
    const item = Object.assign(new Item(), own);
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith([item])), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it('refuses, rather than reads as absent, a status or namespace planted on Object.prototype', () => {
    const prototype = Object.prototype as Record<string, unknown>;
    for (const key of ['status', 'namespace']) {
      prototype[key] = 'in_progress';
      try {
        const full: Record<string, unknown> = functionCall('call_1', 'a', '{}');
        const { [key]: _own, ...item } = full;
        assertParseRefused(parseOpenAIResponsesToolCalls(responseWith([item])), 'MALFORMED_TOOL_CALL', 'malformed_response');
      } finally {
        delete prototype[key];
      }
    }
  });

  it('does not read fields through a polluted prototype', () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['call_id'] = 'call_polluted';
    try {
      const outcome = parseOpenAIResponsesToolCalls(responseWith([{ type: 'function_call', name: 'a', arguments: '{}' }]));
      assertParseRefused(outcome, 'MALFORMED_TOOL_CALL', 'missing_call_id');
    } finally {
      delete prototype['call_id'];
    }
  });
});

describe('parseOpenAIResponsesToolCalls: how many output items it walks', () => {
  // The bound the Anthropic and Gemini adapters keep on content blocks and steps alike: the length
  // is read once, must be a non-negative integer, and is the only one the walk uses.
  const message = { type: 'message' };

  it('refuses an overlong output before reading any item, with its length read once', () => {
    // A length that shrinks after the check cannot let the walk in: the first answer decides.
    const lying = createLyingLengthArray(message, [MAX_RESPONSE_OUTPUT_ITEMS + 1, 1]);
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith(lying.array)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(lying.indexReads()).toBe(0);
    expect(lying.lengthReads()).toBe(1);
  });

  it('walks no further than the length it checked, however long the output claims to be later', () => {
    // Every index holds the same call: a walk past index 0 would find its call id twice.
    const lying = createLyingLengthArray(functionCall('call_1', 'get_order', '{}'), [1, 2 ** 32 - 1]);
    const outcome = parseOpenAIResponsesToolCalls(responseWith(lying.array));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['call_1']);
    expect(lying.indexReads()).toBe(1);
    expect(lying.lengthReads()).toBe(1);
  });

  it('converts a length that is an object never: one answering 1 at the check and 2**32-1 during the walk is refused', () => {
    const { length, conversions } = createObjectLength([1, 2 ** 32 - 1]);
    const lying = createLyingLengthArray(functionCall('call_1', 'get_order', '{}'), [length]);
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith(lying.array)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(lying.indexReads()).toBe(0);
    expect(conversions()).toBe(0);
  });

  it.each(NON_INTEGER_LENGTHS)('refuses an output whose length is %s (only a Proxy answers so) without reading an item', (_label, make) => {
    const { length, conversions } = make();
    // An output read as empty would give no calls, so only the length check can refuse it.
    const lying = createLyingLengthArray(functionCall('call_1', 'get_order', '{}'), [length]);
    assertParseRefused(parseOpenAIResponsesToolCalls(responseWith(lying.array)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(lying.indexReads()).toBe(0);
    expect(conversions()).toBe(0);
  });
});

describe('parseOpenAIResponsesToolCalls: properties', () => {
  it('never throws, and every refusal is a catalogued error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({ id: fc.anything(), output: fc.array(fc.anything(), { maxLength: 5 }) }),
          fc.record({
            id: fc.string(),
            output: fc.array(
              fc.record({
                type: fc.constantFrom('function_call', 'message', 'reasoning'),
                call_id: fc.oneof(fc.string(), fc.anything()),
                name: fc.oneof(fc.string(), fc.anything()),
                arguments: fc.oneof(fc.string(), fc.anything()),
              }),
              { maxLength: 6 },
            ),
          }),
        ),
        (response) => {
          assertParseOutcomeCatalogued(parseOpenAIResponsesToolCalls(response as OpenAIResponsesResponse));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('returns exactly the function calls, in order, whatever else the output holds', () => {
    const call = fc.record({
      // No white space (the ASCII space among fast-check's characters): shown blank, refused.
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((name) => !/[\s\ud800-\udfff]/.test(name)),
      text: fc.json(),
    });
    const noise = fc.record({ type: fc.constantFrom('message', 'reasoning', 'web_search_call'), id: fc.string() });
    fc.assert(
      fc.property(fc.array(fc.tuple(call, fc.array(noise, { maxLength: 2 })), { maxLength: 10 }), (entries) => {
        const output: unknown[] = [];
        entries.forEach(([entry, extra], index) => {
          output.push(...extra, functionCall(`call_${index}`, entry.name, entry.text));
        });
        const outcome = parseOpenAIResponsesToolCalls(responseWith(output, 'resp_prop'));
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        expect(outcome.calls.map((parsed) => [parsed.call_id, parsed.tool_name, parsed.arguments])).toEqual(
          entries.map(([entry], index) => [`call_${index}`, entry.name, { format: 'json_text', text: entry.text }]),
        );
      }),
    );
  });
});
