import {
  assertParsed,
  createConformanceHarness,
  createRecordingVerifier,
  fakeSealedResult,
  findProtectedValues,
} from '@toolseal/adapter-testing';
import type { ToolCall } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { geminiParallel as interaction } from './__fixtures__/gemini-interactions-fixtures.js';
import { convertToGeminiFunctionResults } from './convert-to-gemini-function-results.js';
import { parseGeminiInteractionsToolCalls } from './parse-gemini-interactions-tool-calls.js';

const parsedCalls = () => assertParsed(parseGeminiInteractionsToolCalls(interaction));

describe('convertToGeminiFunctionResults', () => {
  it('continues by previous_interaction_id with one function_result step per call, in call order', () => {
    const calls = parsedCalls();
    const results = [
      fakeSealedResult(calls[0]!),
      fakeSealedResult(calls[1]!, { status: 'failed' }),
      fakeSealedResult(calls[2]!),
    ];
    const outcome = convertToGeminiFunctionResults({
      calls,
      results: [results[2]!, results[1]!, results[0]!],
      verify: createRecordingVerifier().verify,
      options: { continuation: 'previous_interaction_id' },
    });
    expect(outcome).toEqual({
      ok: true,
      payload: {
        previous_interaction_id: 'v1_ChdpbnRlcmFjdGlvbi0wMDAwMDAwMDAy',
        input: calls.map((call, index) => ({
          type: 'function_result',
          call_id: call.call_id,
          name: call.tool_name,
          result: [{ type: 'text', text: canonicalize(results[index]!.model_result) }],
          is_error: index === 1,
        })),
      },
    });
    expect(findProtectedValues(JSON.stringify(outcome), results)).toEqual([]);
  });

  it('continues statelessly by echoing the function_call steps, then the results', () => {
    const calls = parsedCalls();
    const outcome = convertToGeminiFunctionResults({
      calls,
      results: calls.map((call) => fakeSealedResult(call)),
      verify: createRecordingVerifier().verify,
      options: { continuation: 'stateless' },
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect('previous_interaction_id' in outcome.payload).toBe(false);
    expect(outcome.payload.input.slice(0, 3)).toEqual(interaction.steps);
    expect(outcome.payload.input.slice(3).map((step) => [step.type, 'call_id' in step && step.call_id])).toEqual(
      calls.map((call) => ['function_result', call.call_id]),
    );
  });

  it('refuses the turn when one result fails verification', () => {
    const calls = parsedCalls();
    const { verify } = createRecordingVerifier((_sealed, call) =>
      call.call_id === calls[1]!.call_id ? { ok: false, reasons: ['principal_ref'] } : { ok: true },
    );
    const outcome = convertToGeminiFunctionResults({
      calls,
      results: calls.map((call) => fakeSealedResult(call)),
      verify,
      options: { continuation: 'previous_interaction_id' },
    });
    expect(outcome).toEqual({
      ok: false,
      failures: [{ call_id: calls[1]!.call_id, reason: 'verification_failed', verify_reasons: ['principal_ref'] }],
    });
  });

  it('throws on an unknown continuation', () => {
    const calls = parsedCalls();
    expect(() =>
      convertToGeminiFunctionResults({
        calls,
        results: calls.map((call) => fakeSealedResult(call)),
        verify: createRecordingVerifier().verify,
        options: { continuation: 'previous_response_id' } as never,
      }),
    ).toThrow(TypeError);
  });

  describe('stateless continuation: the echoed arguments are a private copy', () => {
    function formatStateless(calls: ReturnType<typeof parsedCalls>) {
      return convertToGeminiFunctionResults({
        calls,
        results: calls.map((call) => fakeSealedResult(call)),
        verify: createRecordingVerifier().verify,
        options: { continuation: 'stateless' },
      });
    }
    function sdkInteraction(argumentsText: string) {
      const wire = `{"id":"int_1","status":"requires_action","steps":[{"type":"function_call","id":"g_1","name":"get_order","arguments":${argumentsText}}]}`;
      return JSON.parse(wire) as { id: string; steps: Array<{ arguments: Record<string, unknown> }> };
    }

    it('echoes a copy taken when the call was parsed, never the SDK object: later changes do not show', () => {
      const interaction = sdkInteraction('{"order_id":"ORDER-C7","lines":[{"line_id":"LINE-1"}]}');
      const calls = assertParsed(parseGeminiInteractionsToolCalls(interaction as never));
      const sdkArguments = interaction.steps[0]!.arguments;
      sdkArguments['injected'] = 'changed after parse';
      (sdkArguments['lines'] as Array<Record<string, unknown>>)[0]!['line_id'] = 'LINE-9';
      const outcome = formatStateless(calls);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      const echoed = outcome.payload.input[0]!;
      expect(echoed.type === 'function_call' && echoed.arguments).toEqual({ order_id: 'ORDER-C7', lines: [{ line_id: 'LINE-1' }] });
      expect(echoed.type === 'function_call' && echoed.arguments).not.toBe(sdkArguments);
    });

    it('the call carries a frozen copy equal to the echo, so the dispatcher runs what the continuation echoes (the review)', () => {
      const interaction = sdkInteraction('{"order_id":"ORDER-C7"}');
      const calls = assertParsed(parseGeminiInteractionsToolCalls(interaction as never));
      const sdkArguments = interaction.steps[0]!.arguments;
      const carried = calls[0]!.arguments;
      expect(carried.format).toBe('json_value');
      expect(carried.format === 'json_value' && carried.value).not.toBe(sdkArguments);
      expect(carried.format === 'json_value' && carried.value).toEqual({ order_id: 'ORDER-C7' });
      sdkArguments['order_id'] = 'ORDER-M9';
      const outcome = formatStateless(calls);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      const echoed = outcome.payload.input[0]!;
      expect(echoed.type === 'function_call' && echoed.arguments).toEqual({ order_id: 'ORDER-C7' });
      // The payload has its own copy, not the call's (frozen) value.
      expect(echoed.type === 'function_call' && echoed.arguments).not.toBe(carried.format === 'json_value' && carried.value);
      expect(carried.format === 'json_value' && carried.value).toEqual({ order_id: 'ORDER-C7' });
    });

    function isDeeplyFrozen(input: unknown): boolean {
      if (typeof input !== 'object' || input === null) return true;
      return Object.isFrozen(input) && Object.values(input).every(isDeeplyFrozen);
    }

    const valueOf = (call: ToolCall): Record<string, unknown> =>
      (call.arguments.format === 'json_value' ? call.arguments.value : undefined) as Record<string, unknown>;

    function echoedArgumentsOf(outcome: ReturnType<typeof formatStateless>, index = 0): Record<string, unknown> {
      if (!outcome.ok) throw new Error('format refused');
      const step = outcome.payload.input[index]!;
      if (step.type !== 'function_call') throw new Error('not an echoed call');
      return step.arguments;
    }

    // Old code: the kept copy was a plain object (false).
    it('the call carries the kept copy deeply frozen', () => {
      const calls = assertParsed(parseGeminiInteractionsToolCalls(sdkInteraction('{"item_id":"ITEM-1","amount":5,"lines":[{"qty":1}]}') as never));
      expect(isDeeplyFrozen(valueOf(calls[0]!))).toBe(true);
    });

    // Old code: the assignment succeeded and the echo showed amount 500000 beside the result of amount 5.
    it('a change to call.arguments.value after dispatch is refused: the stateless echo still shows the arguments that ran', () => {
      const harness = createConformanceHarness();
      const interaction = sdkInteraction('{"item_id":"ITEM-1","amount":5}');
      interaction.steps[0] = { ...interaction.steps[0]!, name: 'kit_write' } as (typeof interaction.steps)[0];
      const calls = assertParsed(parseGeminiInteractionsToolCalls(interaction as never));
      const results = [harness.seal(calls[0]!)];
      const carried = valueOf(calls[0]!) as { amount: number; extra?: boolean };
      expect(() => {
        carried.amount = 500000;
      }).toThrow(TypeError);
      expect(() => {
        carried.extra = true;
      }).toThrow(TypeError);
      const outcome = convertToGeminiFunctionResults({
        calls,
        results,
        verify: harness.verify,
        options: { continuation: 'stateless' },
      });
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(echoedArgumentsOf(outcome)).toEqual({ item_id: 'ITEM-1', amount: 5 });
      const result = outcome.payload.input[1]!;
      expect(result.type === 'function_result' && JSON.parse(result.result[0].text)).toMatchObject({ data: { amount: 5 } });
    });

    // Old code: both payloads and the call shared one object, so all three showed amount 7.
    it('every payload has its own copy: changing one changes neither the call nor another payload', () => {
      const calls = assertParsed(parseGeminiInteractionsToolCalls(sdkInteraction('{"item_id":"ITEM-1","amount":5,"lines":[{"qty":1}]}') as never));
      const first = formatStateless(calls);
      const second = formatStateless(calls);
      const mutated = echoedArgumentsOf(first) as { amount: number; lines: Array<{ qty: number }> };
      expect(Object.isFrozen(mutated)).toBe(false);
      mutated.amount = 7;
      mutated.lines[0]!.qty = 9;
      mutated.lines.push({ qty: 2 });
      expect(valueOf(calls[0]!)).toEqual({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
      expect(echoedArgumentsOf(second)).toEqual({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
      expect(echoedArgumentsOf(formatStateless(calls))).toEqual({ item_id: 'ITEM-1', amount: 5, lines: [{ qty: 1 }] });
    });

    // Old code: every echo was the call's own value (the same object).
    it('gives every echoed call its own copy within one payload', () => {
      const calls = parsedCalls();
      const outcome = formatStateless(calls);
      const echoed = [0, 1, 2].map((index) => echoedArgumentsOf(outcome, index));
      echoed.forEach((args, index) => {
        expect(args).toEqual(valueOf(calls[index]!));
        expect(args).not.toBe(valueOf(calls[index]!));
      });
    });

    it('echoes a copy for calls the host rebuilt (e.g. from storage)', () => {
      const calls = parsedCalls().map((call) => structuredClone(call));
      const outcome = formatStateless(calls);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(outcome.payload.input.slice(0, 3)).toEqual(interaction.steps);
      outcome.payload.input.slice(0, 3).forEach((step, index) => {
        const original = calls[index]!.arguments;
        expect(step.type === 'function_call' && step.arguments).not.toBe(original.format === 'json_value' && original.value);
      });
    });

    it('echoes empty arguments for a call whose arguments are not JSON data (1e400): its result carries the refusal', () => {
      const interaction = sdkInteraction('{"n":1e400,"order_id":"ORDER-C7"}');
      const calls = assertParsed(parseGeminiInteractionsToolCalls(interaction as never));
      const outcome = formatStateless(calls);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(outcome.payload.input[0]).toEqual({ type: 'function_call', id: 'g_1', name: 'get_order', arguments: {} });
      expect(() => JSON.stringify(outcome.payload)).not.toThrow();
    });
  });


});
