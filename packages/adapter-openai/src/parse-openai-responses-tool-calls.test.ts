import { readFileSync } from 'node:fs';
import type { ParseToolCallsOutcome } from '@toolseal/contracts';
import { checkError } from '@toolseal/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OpenAIResponsesResponse } from './openai-responses-api.js';
import { parseOpenAIResponsesToolCalls } from './parse-openai-responses-tool-calls.js';
import { resolveAdapterSettings } from './resolve-adapter-settings.js';

function fixture(name: string): OpenAIResponsesResponse {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as OpenAIResponsesResponse;
}

function functionCall(callId: unknown, name: unknown, text: unknown, extra: Record<string, unknown> = {}) {
  return { type: 'function_call', id: `fc_${String(callId)}`, call_id: callId, name, arguments: text, status: 'completed', ...extra };
}

function responseWith(output: unknown[], id: unknown = 'resp_1'): OpenAIResponsesResponse {
  return { id, output } as unknown as OpenAIResponsesResponse;
}

function expectRejected(outcome: ParseToolCallsOutcome, code: string, rule: string): void {
  expect(outcome.ok).toBe(false);
  if (outcome.ok) return;
  expect(checkError(outcome.error).ok).toBe(true);
  expect(outcome.error.code).toBe(code);
  expect(outcome.error.reasons).toEqual([{ field: '', rule }]);
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

  it('returns no calls for a response without function_call items', () => {
    expect(parseOpenAIResponsesToolCalls(responseWith([{ type: 'message', content: [] }]))).toEqual({
      ok: true,
      response_id: 'resp_1',
      calls: [],
    });
  });
});

describe('parseOpenAIResponsesToolCalls: refusals', () => {
  it('refuses a repeated call id', () => {
    const outcome = parseOpenAIResponsesToolCalls(
      responseWith([functionCall('call_1', 'a', '{}'), functionCall('call_1', 'b', '{}')]),
    );
    expectRejected(outcome, 'MALFORMED_TOOL_CALL', 'duplicate_call_id');
  });

  it.each([undefined, null, ''])('refuses a missing call id (%j)', (callId) => {
    expectRejected(
      parseOpenAIResponsesToolCalls(responseWith([functionCall(callId, 'a', '{}')])),
      'MALFORMED_TOOL_CALL',
      'missing_call_id',
    );
  });

  it.each([undefined, null, ''])('refuses a missing or empty name (%j)', (name) => {
    expectRejected(
      parseOpenAIResponsesToolCalls(responseWith([functionCall('call_1', name, '{}')])),
      'MALFORMED_TOOL_CALL',
      'empty_tool_name',
    );
  });

  it.each([
    ['a non-string call id', functionCall(7, 'a', '{}')],
    ['a call id over 256 characters', functionCall('c'.repeat(257), 'a', '{}')],
    ['a call id with a lone surrogate', functionCall('call_\ud800', 'a', '{}')],
    ['a non-string name', functionCall('call_1', ['a'], '{}')],
    ['a name over 256 characters', functionCall('call_1', 'n'.repeat(257), '{}')],
    ['arguments that are not text', functionCall('call_1', 'a', { order_id: 'x' })],
    ['missing arguments', functionCall('call_1', 'a', undefined)],
    ['an unfinished call', functionCall('call_1', 'a', '{"order_id":"ORD', { status: 'incomplete' })],
    ['an in-progress call', functionCall('call_1', 'a', '{}', { status: 'in_progress' })],
    ['a namespaced call', functionCall('call_1', 'a', '{}', { namespace: 'crm' })],
    ['an output item that is not an object', null],
  ])('refuses %s as a malformed response', (_label, item) => {
    expectRejected(
      parseOpenAIResponsesToolCalls(responseWith([item])),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  it('accepts ids and names exactly at 256 characters', () => {
    const outcome = parseOpenAIResponsesToolCalls(
      responseWith([functionCall('c'.repeat(256), 'n'.repeat(256), '{}')], 'r'.repeat(256)),
    );
    expect(outcome.ok).toBe(true);
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
    expectRejected(
      parseOpenAIResponsesToolCalls(response as unknown as OpenAIResponsesResponse),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  it('refuses more than 64 calls by default, and accepts 64', () => {
    const calls = (count: number) => Array.from({ length: count }, (_, index) => functionCall(`call_${index}`, 'a', '{}'));
    expect(parseOpenAIResponsesToolCalls(responseWith(calls(64))).ok).toBe(true);
    expectRejected(parseOpenAIResponsesToolCalls(responseWith(calls(65))), 'MALFORMED_TOOL_CALL', 'too_many_calls');
  });

  it('honours a configured maxCalls', () => {
    const settings = resolveAdapterSettings('openai', 'responses', 'openai-responses-v1', { maxCalls: 2 });
    const output = [functionCall('c1', 'a', '{}'), functionCall('c2', 'a', '{}'), functionCall('c3', 'a', '{}')];
    expectRejected(parseOpenAIResponsesToolCalls(responseWith(output), settings), 'MALFORMED_TOOL_CALL', 'too_many_calls');
  });

  it('refuses arguments over 1 MiB of UTF-8 and accepts exactly 1 MiB', () => {
    const exactly = `"${'x'.repeat(1_048_574)}"`;
    expect(parseOpenAIResponsesToolCalls(responseWith([functionCall('c1', 'a', exactly)])).ok).toBe(true);
    expectRejected(
      parseOpenAIResponsesToolCalls(responseWith([functionCall('c1', 'a', `${exactly} `)])),
      'INVALID_ARGUMENTS',
      'max_bytes',
    );
  });

  it('counts UTF-8 bytes, not UTF-16 code units', () => {
    const settings = resolveAdapterSettings('openai', 'responses', 'openai-responses-v1', { maxArgumentBytes: 8 });
    // Two euro signs: 2 code units, 6 bytes; plus the quotes: 8 bytes.
    expect(parseOpenAIResponsesToolCalls(responseWith([functionCall('c1', 'a', '"€€"')]), settings).ok).toBe(true);
    expectRejected(
      parseOpenAIResponsesToolCalls(responseWith([functionCall('c1', 'a', '"€€€"')]), settings),
      'INVALID_ARGUMENTS',
      'max_bytes',
    );
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
    expectRejected(parseOpenAIResponsesToolCalls(responseWith([item])), 'MALFORMED_TOOL_CALL', 'empty_tool_name');
    expect(ran).toBe(false);
  });

  it('does not read fields through a polluted prototype', () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['call_id'] = 'call_polluted';
    try {
      const outcome = parseOpenAIResponsesToolCalls(responseWith([{ type: 'function_call', name: 'a', arguments: '{}' }]));
      expectRejected(outcome, 'MALFORMED_TOOL_CALL', 'missing_call_id');
    } finally {
      delete prototype['call_id'];
    }
  });

  it('refuses a proxy whose traps throw instead of throwing', () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
      },
    );
    expectRejected(
      parseOpenAIResponsesToolCalls(hostile as OpenAIResponsesResponse),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
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
          const outcome = parseOpenAIResponsesToolCalls(response as OpenAIResponsesResponse);
          if (!outcome.ok) {
            expect(checkError(outcome.error).ok).toBe(true);
            expect(['MALFORMED_TOOL_CALL', 'INVALID_ARGUMENTS']).toContain(outcome.error.code);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('returns exactly the function calls, in order, whatever else the output holds', () => {
    const call = fc.record({
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((name) => !/[\ud800-\udfff]/.test(name)),
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
