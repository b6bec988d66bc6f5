import { assertParsed, createRecordingVerifier, fakeSealedResult, findProtectedValues } from '@toolseal/adapter-testing';
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
});
