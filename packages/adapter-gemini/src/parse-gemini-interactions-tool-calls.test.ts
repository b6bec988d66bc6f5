// Provider-specific parsing only: the rules every adapter shares (ids, names, call count,
// argument size and limits) are tested once in @toolseal/adapter-core and run on this adapter by
// the conformance kit (conformance.test.ts).
import { readFileSync } from 'node:fs';
import { assertParseOutcomeCatalogued, assertParseRefused, createLyingLengthArray, NON_INTEGER_LENGTHS } from '@toolseal/adapter-testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GeminiInteractionsResponse } from './gemini-interactions-api.js';
import { MAX_INTERACTION_STEPS } from './index.js';
import { parseGeminiInteractionsToolCalls } from './parse-gemini-interactions-tool-calls.js';
import { holdsUnsafeInteger } from '@toolseal/adapter-core/testing';

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

  it.each<[string, unknown]>([
    ['null', null],
    ['an object', { 0: {} }],
    ['a string', 'steps'],
  ])('refuses a finished interaction whose steps are %s (absent or an array only)', (_label, steps) => {
    const interaction = { id: 'int_1', status: 'completed', steps } as unknown as GeminiInteractionsResponse;
    assertParseRefused(parseGeminiInteractionsToolCalls(interaction), 'MALFORMED_TOOL_CALL', 'malformed_response');
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

describe('parseGeminiInteractionsToolCalls: repeated call ids', () => {
  it.each<[string, unknown[]]>([
    [
      'answered, then repeated by a pending call with other arguments',
      [
        functionCall('g_1', 'get_order', { order_id: 'ORDER-C7' }),
        { type: 'function_result', call_id: 'g_1', name: 'get_order', result: 'done' },
        functionCall('g_1', 'get_order', { order_id: 'ORDER-M9' }),
      ],
    ],
    [
      'repeated, then answered once',
      [
        functionCall('g_1', 'get_order', {}),
        functionCall('g_1', 'get_order', {}),
        { type: 'function_result', call_id: 'g_1', name: 'get_order', result: 'done' },
      ],
    ],
    ['repeated by two pending calls', [functionCall('g_1', 'get_order', {}), functionCall('g_1', 'get_order', {})]],
  ])('refuses a call id %s as duplicate_call_id', (_label, steps) => {
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(steps)), 'MALFORMED_TOOL_CALL', 'duplicate_call_id');
  });

  it.each<[string, unknown]>([
    ['an object with a toString', { toString: () => 'g_1' }],
    ['a number', 1],
    ['missing', undefined],
  ])('refuses a function_result whose call_id is %s', (_label, callId) => {
    const steps = [functionCall('g_1', 'get_order', {}), { type: 'function_result', call_id: callId, result: 'done' }];
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(steps)), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });
});

describe('parseGeminiInteractionsToolCalls: which function_result answers which call', () => {
  // A function_result answers a call made before it (Interactions API: the client sends results
  // for the calls of an interaction waiting in `requires_action`); the timeline of an interaction
  // continued with previous_interaction_id also holds the client's results for the previous one.
  it('takes a call answered by a function_result before it as pending: here, a reused id', () => {
    const steps = [
      { type: 'function_result', call_id: 'fc-2', name: 'create_refund_draft', result: 'old' },
      functionCall('fc-2', 'create_refund_draft', { order_id: 'ORDER-7' }),
    ];
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(steps)), 'MALFORMED_TOOL_CALL', 'duplicate_call_id');
  });

  it('returns a pending call behind a function_result for a call of an earlier interaction', () => {
    // The timeline of turn 2: the client's result for turn 1's call, then the model's new call.
    const steps = [
      { type: 'function_result', call_id: 'fc-turn1', name: 'get_order', result: [{ type: 'text', text: '{}' }] },
      { type: 'model_output', content: [{ type: 'text', text: 'Now the refund.' }] },
      functionCall('fc-turn2', 'create_refund_draft', { order_id: 'ORDER-7' }),
    ];
    const outcome = parseGeminiInteractionsToolCalls(interactionWith(steps));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['fc-turn2']);
  });

  it('counts a call answered only by a function_result after it', () => {
    const steps = [
      functionCall('fc-1', 'get_order', {}),
      functionCall('fc-2', 'get_order', {}),
      { type: 'function_result', call_id: 'fc-1', result: 'done' },
    ];
    const outcome = parseGeminiInteractionsToolCalls(interactionWith(steps));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['fc-2']);
  });

  it.each<[string, unknown[]]>([
    ['no steps at all', []],
    ['only answered calls', [functionCall('fc-1', 'get_order', {}), { type: 'function_result', call_id: 'fc-1', result: 'done' }]],
    ['only results for calls of an earlier interaction', [{ type: 'function_result', call_id: 'fc-0', result: 'done' }]],
    ['only model output', [{ type: 'model_output', content: [{ type: 'text', text: 'Done.' }] }]],
  ])('refuses an interaction that requires action with %s: nothing is pending', (_label, steps) => {
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(steps)), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it('property: a call is pending unless a function_result after it answers it', () => {
    // Each entry: a call, with a result before it, after it, both or none.
    const entry = fc.constantFrom('none', 'before', 'after', 'both');
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 8 }), (entries) => {
        const steps = entries.flatMap((placement, index) => {
          const result = { type: 'function_result', call_id: `fc-${index}`, result: 'x' };
          const call = functionCall(`fc-${index}`, 'get_order', {});
          if (placement === 'before') return [result, call];
          if (placement === 'after') return [call, result];
          if (placement === 'both') return [result, call, result];
          return [call];
        });
        const outcome = parseGeminiInteractionsToolCalls(interactionWith(steps));
        // A result before its call means the id was answered already: reused, refused.
        if (entries.some((placement) => placement === 'before' || placement === 'both')) {
          assertParseRefused(outcome, 'MALFORMED_TOOL_CALL', 'duplicate_call_id');
          return;
        }
        const pending = entries.flatMap((placement, index) => (placement === 'none' ? [`fc-${index}`] : []));
        if (pending.length === 0) {
          assertParseRefused(outcome, 'MALFORMED_TOOL_CALL', 'malformed_response');
          return;
        }
        expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(pending);
      }),
    );
  });
});

describe('parseGeminiInteractionsToolCalls: hidden refusal fields', () => {
  /** `target` with `key` replaced by an own getter answering `answer`; records whether it ran. */
  function withGetter(target: object, key: string, answer: unknown): { value: object; ran: () => boolean } {
    let ran = false;
    const copy = { ...target } as Record<string, unknown>;
    delete copy[key];
    Object.defineProperty(copy, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        ran = true;
        return answer;
      },
    });
    return { value: copy, ran: () => ran };
  }
  const answered = [functionCall('g_1', 'get_order', {}), { type: 'function_result', call_id: 'g_1', result: 'done' }];

  it.each<[string, object, string, unknown]>([
    ['status (requires_action)', interactionWith([functionCall('g_1', 'get_order', {})]), 'status', 'requires_action'],
    ['status (completed), no pending call', interactionWith(answered, 'completed'), 'status', 'completed'],
    ['steps, status completed', interactionWith([functionCall('g_1', 'get_order', {})], 'completed'), 'steps', []],
  ])('refuses an interaction whose %s is a getter, without running it', (_label, interaction, key, answer) => {
    const { value, ran } = withGetter(interaction, key, answer);
    assertParseRefused(parseGeminiInteractionsToolCalls(value as GeminiInteractionsResponse), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(ran()).toBe(false);
  });

  it.each<[string, number, string, unknown]>([
    ['the type of a function_call step', 0, 'type', 'function_call'],
    ['the type of a function_result step', 1, 'type', 'function_result'],
    ['the call_id of a function_result step', 1, 'call_id', 'g_1'],
  ])('refuses an interaction where %s is a getter, without running it', (_label, index, key, answer) => {
    const { value, ran } = withGetter(answered[index]!, key, answer);
    const steps = answered.map((step, each) => (each === index ? value : step));
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(steps)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(ran()).toBe(false);
  });

  it('refuses an interaction whose status comes only from its prototype (a class, a polluted Object.prototype)', () => {
    class Interaction {
      get status(): string {
        return 'requires_action';
      }
    }
    const own = { id: 'int_1', steps: answered };
    assertParseRefused(
      parseGeminiInteractionsToolCalls(Object.assign(new Interaction(), own) as unknown as GeminiInteractionsResponse),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['status'] = 'requires_action';
    try {
      assertParseRefused(parseGeminiInteractionsToolCalls(own as unknown as GeminiInteractionsResponse), 'MALFORMED_TOOL_CALL', 'malformed_response');
    } finally {
      delete prototype['status'];
    }
  });
});

describe('parseGeminiInteractionsToolCalls: depth behind a value JSON cannot express', () => {
  // The conformance kit covers sizes before and after Infinity; nesting 100,000 deep only a
  // value-argument adapter can be handed (the kit's response builders would overflow building it).
  // What the SDK hands over: `JSON.parse` of the wire text, where 1e400 becomes Infinity.
  function sdkInteraction(argumentsText: string): GeminiInteractionsResponse {
    const wire = `{"id":"int_1","status":"requires_action","steps":[{"type":"function_call","id":"g_1","name":"get_order","arguments":${argumentsText}}]}`;
    return JSON.parse(wire) as GeminiInteractionsResponse;
  }
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

  it('refuses 100,000-deep nesting after 1e400 with INVALID_ARGUMENTS, as without the Infinity', () => {
    const withInfinity = `{"n":1e400,"a":${deep}}`;
    const without = `{"n":1,"a":${deep}}`;
    const expected = parseGeminiInteractionsToolCalls(sdkInteraction(without));
    expect(!expected.ok && expected.error.code).toBe('INVALID_ARGUMENTS');
    expect(parseGeminiInteractionsToolCalls(sdkInteraction(withInfinity))).toEqual(expected);
  });
});

describe('parseGeminiInteractionsToolCalls: how many steps it walks', () => {
  // The bound the OpenAI adapter keeps on `output` items (`MAX_RESPONSE_OUTPUT_ITEMS`), with the
  // same refusal: far above any real interaction, low enough that no host-made array is walked forever.
  const thought = { type: 'thought', signature: 'c2ln' };

  it('is 100,000 steps, as OpenAI bounds output items', () => {
    expect(MAX_INTERACTION_STEPS).toBe(100_000);
  });

  it(`refuses an interaction of more than ${MAX_INTERACTION_STEPS} steps as OpenAI refuses a longer output, and accepts ${MAX_INTERACTION_STEPS}`, () => {
    const many = Array.from({ length: MAX_INTERACTION_STEPS + 1 }, () => thought);
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(many, 'completed')), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(parseGeminiInteractionsToolCalls(interactionWith(many.slice(1), 'completed'))).toEqual({ ok: true, response_id: 'int_1', calls: [] });
    // The bound counts steps, whatever their type: a pending call as the last of 100,000 is returned.
    const withCall = [...many.slice(2), functionCall('fc-1', 'get_order', { order_id: 'ORDER-7' })];
    expect(withCall).toHaveLength(MAX_INTERACTION_STEPS);
    const outcome = parseGeminiInteractionsToolCalls(interactionWith(withCall));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['fc-1']);
  });

  it('refuses overlong steps before reading any, with their length read once', () => {
    // A length that shrinks after the check cannot let the walk in: the first answer decides.
    const lying = createLyingLengthArray(thought, [MAX_INTERACTION_STEPS + 1, 1]);
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(lying.array, 'completed')), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(lying.indexReads()).toBe(0);
    expect(lying.lengthReads()).toBe(1);
  });

  it('walks no further than the length it checked, however long the steps claim to be later', () => {
    // Every index holds the same call: a walk past index 0 would find its id twice.
    const lying = createLyingLengthArray(functionCall('fc-1', 'get_order', {}), [1, 2 ** 32 - 1]);
    const outcome = parseGeminiInteractionsToolCalls(interactionWith(lying.array));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['fc-1']);
    expect(lying.indexReads()).toBe(1);
    expect(lying.lengthReads()).toBe(1);
  });

  it.each(NON_INTEGER_LENGTHS)('refuses steps whose length is %s (only a Proxy answers so) without reading a step', (_label, make) => {
    const { length, conversions } = make();
    // `completed`: steps read as empty would give no calls, so only the length check can refuse them.
    const lying = createLyingLengthArray(functionCall('fc-1', 'get_order', {}), [length]);
    assertParseRefused(parseGeminiInteractionsToolCalls(interactionWith(lying.array, 'completed')), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(lying.indexReads()).toBe(0);
    expect(conversions()).toBe(0);
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
      // No white space (the ASCII space among fast-check's characters): shown blank, refused.
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((name) => !/[\s\ud800-\udfff]/.test(name)),
      // Integers beyond 2^53 - 1 are refused as possibly rounded (see the SDK tests).
      input: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }).filter((each) => !holdsUnsafeInteger(each)),
      answered: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 10 }), (entries) => {
        const steps = entries.flatMap((entry, index) => [
          functionCall(`fc-${index}`, entry.name, entry.input),
          ...(entry.answered ? [{ type: 'function_result', call_id: `fc-${index}`, result: 'x' }] : []),
        ]);
        const outcome = parseGeminiInteractionsToolCalls(interactionWith(steps));
        const pending = entries.flatMap((entry, index) => (entry.answered ? [] : [[`fc-${index}`, entry.name, entry.input]]));
        // `requires_action` with nothing pending contradicts itself: refused.
        if (pending.length === 0) {
          assertParseRefused(outcome, 'MALFORMED_TOOL_CALL', 'malformed_response');
          return;
        }
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        expect(outcome.calls.map((call) => [call.call_id, call.tool_name, call.arguments.format === 'json_value' && call.arguments.value])).toEqual(pending);
      }),
    );
  });
});

describe('parseGeminiInteractionsToolCalls: each step read once', () => {
  /** A step whose `key` answers `first` on its first read and `later` after (a Proxy can). */
  function flipping(step: Record<string, unknown>, key: string, first: unknown, later: unknown): { step: object; reads: () => number } {
    let reads = 0;
    const proxy = new Proxy(step, {
      getOwnPropertyDescriptor(target, property) {
        const descriptor = Reflect.getOwnPropertyDescriptor(target, property);
        if (property !== key || descriptor === undefined) return descriptor;
        reads += 1;
        return { ...descriptor, value: reads === 1 ? first : later };
      },
    });
    return { step: proxy, reads: () => reads };
  }

  it('keeps the call id it checked: a second read cannot reuse an id answered earlier', () => {
    const answered = { type: 'function_result', call_id: 'old1', result: 'r' };
    const flip = flipping(functionCall('new1', 'get_order', { order_id: 'A' }), 'id', 'new1', 'old1');
    const outcome = parseGeminiInteractionsToolCalls(interactionWith([answered, flip.step]));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['new1']);
    expect(flip.reads()).toBe(1);
  });

  it('keeps the type it checked: a step read as a thought never becomes a call', () => {
    const call = functionCall('g1', 'get_order', { order_id: 'A' });
    const flip = flipping(functionCall('g9', 'get_order', { order_id: 'B' }), 'type', 'thought', 'function_call');
    const outcome = parseGeminiInteractionsToolCalls(interactionWith([call, flip.step]));
    expect(outcome.ok && outcome.calls.map((parsed) => parsed.call_id)).toEqual(['g1']);
    expect(flip.reads()).toBe(1);
  });
});
