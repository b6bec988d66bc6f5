import { adapterConformanceCases } from '@toolseal/adapter-testing';
import { describe, it } from 'vitest';
import { interaction } from './__fixtures__/gemini-interactions-fixtures.js';
import { createGeminiInteractionsAdapter, type GeminiInteractionsFormatOptions, type GeminiInteractionsPayload } from './index.js';

function readResults(payload: GeminiInteractionsPayload) {
  return payload.input.flatMap((step) =>
    step.type === 'function_result' ? [{ call_id: step.call_id, text: step.result[0].text, is_error: step.is_error }] : [],
  );
}

describe.each<[string, GeminiInteractionsFormatOptions]>([
  ['previous_interaction_id', { continuation: 'previous_interaction_id' }],
  ['stateless', { continuation: 'stateless' }],
])('Gemini Interactions adapter conformance (%s)', (_label, options) => {
  const cases = adapterConformanceCases({
    adapter: createGeminiInteractionsAdapter(),
    // Built as the SDK's own `Interactions.Interaction` type, as `ai.interactions.create` returns it:
    // waiting for function results while it has calls, `completed` without any.
    makeResponse: (calls, responseId) =>
      interaction(
        responseId,
        calls.map((call) => ({ type: 'function_call', id: call.call_id, name: call.tool_name, arguments: call.arguments })),
        calls.length === 0 ? 'completed' : 'requires_action',
      ),
    formatOptions: () => options,
    readResults,
    errorFlag: true,
  });
  for (const { name, run } of cases) it(name, run);
});
