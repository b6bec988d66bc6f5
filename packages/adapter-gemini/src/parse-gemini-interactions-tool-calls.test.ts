// Provider-specific parsing only: the rules every adapter shares (ids, names, call count,
// argument size and limits) are tested once in @toolseal/adapter-core and run on this adapter by
// the conformance kit (conformance.test.ts).
import { readFileSync } from 'node:fs';
import { assertParseOutcomeCatalogued, assertParseRefused } from '@toolseal/adapter-testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GeminiInteractionsResponse } from './gemini-interactions-api.js';
import { parseGeminiInteractionsToolCalls } from './parse-gemini-interactions-tool-calls.js';

function fixture(name: string): GeminiInteractionsResponse {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as GeminiInteractionsResponse;
}

function functionCall(id: unknown, name: unknown, callArguments: unknown) {
  return { type: 'function_call', id, name, arguments: callArguments };
}

function interactionWith(steps: unknown[] | undefined, status = 'requires_action'): GeminiInteractionsResponse {
  return { id: 'int_1', status, ...(steps === undefined ? {} : { steps }) } as unknown as GeminiInteractionsResponse;
}

describe('parseGeminiInteractionsToolCalls: fixtures', () => {
  it('parses a single function_call step with its arguments as a value', () => {
    expect(parseGeminiInteractionsToolCalls(fixture('gemini-single.json'))).toEqual({
      ok: true,
      response_id: 'v1_ChdpbnRlcmFjdGlvbi0wMDAwMDAwMDAx',
      calls: [
        {
          provider: 'gemini',
          api_family: 'interactions',
          adapter_revision: 'gemini-interactions-v1',
          response_id: 'v1_ChdpbnRlcmFjdGlvbi0wMDAwMDAwMDAx',
          call_id: 'fc-8d1f6a2b',
          tool_name: 'get_order',
          arguments: { format: 'json_value', value: { order_id: 'ORDER-C7' } },
        },
      ],
    });
  });

  it('keeps parallel calls in step order', () => {
    const outcome = parseGeminiInteractionsToolCalls(fixture('gemini-parallel.json'));
    expect(outcome.ok && outcome.calls.map((call) => [call.call_id, call.tool_name])).toEqual([
      ['fc-1a2b3c4d', 'get_order'],
      ['fc-5e6f7a8b', 'get_order'],
      ['fc-9c0d1e2f', 'create_refund_draft'],
    ]);
  });

  it('ignores thoughts and model output, including instructions planted in text', () => {
    const outcome = parseGeminiInteractionsToolCalls(fixture('gemini-mixed-text.json'));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['fc-3a4b5c6d']);
  });

  it('skips calls already answered by a function_result step in the same interaction', () => {
    const outcome = parseGeminiInteractionsToolCalls(
      interactionWith([
        functionCall('fc-1', 'get_order', {}),
        { type: 'function_result', call_id: 'fc-1', name: 'get_order', result: 'done' },
        functionCall('fc-2', 'get_order', {}),
      ]),
    );
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['fc-2']);
  });

  it('returns no calls for a finished interaction without steps', () => {
    expect(parseGeminiInteractionsToolCalls(interactionWith(undefined, 'completed'))).toEqual({
      ok: true,
      response_id: 'int_1',
      calls: [],
    });
  });
  it.each(['completed', 'failed', 'incomplete', 'in_progress'])(
    'returns no calls for a %s interaction whose calls are all answered or absent',
    (status) => {
      const steps = [
        functionCall('fc-1', 'get_order', {}),
        { type: 'function_result', call_id: 'fc-1', name: 'get_order', result: 'done' },
        { type: 'model_output', content: [{ type: 'text', text: 'Done.' }] },
      ];
      expect(parseGeminiInteractionsToolCalls(interactionWith(steps, status))).toEqual({ ok: true, response_id: 'int_1', calls: [] });
    },
  );
});

describe('parseGeminiInteractionsToolCalls: refusals', () => {
  it('refuses an interaction that requires action but carries no steps', () => {
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(undefined)), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  // Interactions API `Interaction.status` (@google/genai 2.32.0 `InteractionStatus`): only
  // `requires_action` means the model waits for the client's function results.
  it.each([
    'in_progress',
    'queued',
    'requires_continuation',
    'incomplete',
    'failed',
    'cancelled',
    'budget_exceeded',
    'completed',
    'REQUIRES_ACTION',
    'a status the adapter does not know',
  ])('refuses a pending function_call step while the status is %s', (status) => {
    const steps = [functionCall('fc-1', 'create_refund_draft', { order_id: 'ORDER-7', amount: 6000 })];
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(steps, status)), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it('refuses a pending function_call step without a status', () => {
    const interaction = { id: 'int_1', steps: [functionCall('fc-1', 'get_order', {})] } as unknown as GeminiInteractionsResponse;
    assertParseRefused(parseGeminiInteractionsToolCalls(interaction), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it('refuses a completed interaction with one answered and one pending call', () => {
    const steps = [
      functionCall('fc-1', 'get_order', {}),
      { type: 'function_result', call_id: 'fc-1', name: 'get_order', result: 'done' },
      functionCall('fc-2', 'get_order', {}),
    ];
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(steps, 'completed')), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it.each([
    ['arguments that are a string', functionCall('fc-1', 'a', '{}')],
    ['arguments that are an array', functionCall('fc-1', 'a', [])],
    ['missing arguments', functionCall('fc-1', 'a', undefined)],
    ['a step that is not an object', 42],
  ])('refuses %s as a malformed interaction', (_label, step) => {
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith([step])), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it.each([
    ['null', null],
    ['a missing id', { steps: [] }],
    ['steps that are not an array', { id: 'int_1', status: 'requires_action', steps: {} }],
  ])('refuses %s as a malformed interaction', (_label, interaction) => {
    assertParseRefused(
      parseGeminiInteractionsToolCalls(interaction as unknown as GeminiInteractionsResponse),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });
});

describe('parseGeminiInteractionsToolCalls: properties', () => {
  it('never throws, and every refusal is a catalogued error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({ id: fc.anything(), status: fc.anything(), steps: fc.array(fc.anything(), { maxLength: 5 }) }),
          fc.record({
            id: fc.string(),
            status: fc.constantFrom('requires_action', 'completed'),
            steps: fc.array(
              fc.record({
                type: fc.constantFrom('function_call', 'function_result', 'model_output', 'thought'),
                id: fc.oneof(fc.string(), fc.anything()),
                call_id: fc.oneof(fc.string(), fc.anything()),
                name: fc.oneof(fc.string(), fc.anything()),
                arguments: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.anything()),
              }),
              { maxLength: 6 },
            ),
          }),
        ),
        (interaction) => {
          assertParseOutcomeCatalogued(parseGeminiInteractionsToolCalls(interaction as GeminiInteractionsResponse));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses pending calls under every status but requires_action, and accepts them under it', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constant('requires_action'), fc.anything()), (status) => {
        const interaction = { id: 'int_1', status, steps: [functionCall('fc-1', 'get_order', {})] } as unknown as GeminiInteractionsResponse;
        const outcome = parseGeminiInteractionsToolCalls(interaction);
        if (status === 'requires_action') expect(outcome.ok && outcome.calls.length).toBe(1);
        else assertParseRefused(outcome, 'MALFORMED_TOOL_CALL', 'malformed_response');
      }),
    );
  });

  it('returns exactly the pending function_call steps, in order', () => {
    const step = fc.record({
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((name) => !/[\ud800-\udfff]/.test(name)),
      input: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
      answered: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 10 }), (entries) => {
        const steps = entries.flatMap((entry, index) => [
          functionCall(`fc-${index}`, entry.name, entry.input),
          ...(entry.answered ? [{ type: 'function_result', call_id: `fc-${index}`, result: 'x' }] : []),
        ]);
        const outcome = parseGeminiInteractionsToolCalls(interactionWith(steps));
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        const pending = entries.flatMap((entry, index) => (entry.answered ? [] : [[`fc-${index}`, entry.name, entry.input]]));
        expect(outcome.calls.map((call) => [call.call_id, call.tool_name, call.arguments.format === 'json_value' && call.arguments.value])).toEqual(pending);
      }),
    );
  });
});
