import { adapterConformanceCases, type ConformanceCall, otherFieldsAsText } from '@toolseal/adapter-testing';
import type { Interactions } from '@google/genai';
import { describe, it } from 'vitest';
import { interaction } from './__fixtures__/gemini-interactions-fixtures.js';
import { createGeminiInteractionsAdapter, type GeminiInteractionsFormatOptions, type GeminiInteractionsPayload } from './index.js';

function readResults(payload: GeminiInteractionsPayload) {
  return payload.input.flatMap((step) =>
    step.type === 'function_result' ? [{ call_id: step.call_id, text: step.result[0].text, is_error: step.is_error }] : [],
  );
}

function readEchoedCalls(payload: GeminiInteractionsPayload) {
  return payload.input.flatMap((step) =>
    step.type === 'function_call'
      ? [{ call_id: step.id, tool_name: step.name, arguments: { format: 'json_value' as const, value: step.arguments } }]
      : [],
  );
}

/** The kind of each step in input order: the echoed calls come before their results. */
function readItemOrder(payload: GeminiInteractionsPayload) {
  return payload.input.flatMap((step) =>
    step.type === 'function_result' ? ['result' as const] : step.type === 'function_call' ? ['echo' as const] : [],
  );
}

/** The fields of `value` beyond `known`, each serialized: text where the adapter writes none. */
/**
 * Every text the model could read in the payload besides the result texts and the echoed calls:
 * any other step, result part or field, serialized. The adapter writes none.
 */
function readModelText(payload: GeminiInteractionsPayload): string[] {
  return [
    ...otherFieldsAsText(payload, ['input', 'previous_interaction_id']),
    ...payload.input.flatMap((step) =>
      step.type === 'function_result'
        ? [
            ...otherFieldsAsText(step, ['type', 'call_id', 'name', 'result', 'is_error']),
            ...otherFieldsAsText(step.result[0], ['type', 'text']),
            ...step.result.slice(1).map((part) => JSON.stringify(part)),
          ]
        : step.type === 'function_call'
          ? otherFieldsAsText(step, ['type', 'id', 'name', 'arguments'])
          : [JSON.stringify(step)],
    ),
  ];
}

/**
 * Built as the SDK's own `Interactions.Interaction` type, as `ai.interactions.create` returns it:
 * waiting for function results while it has calls, `completed` without any.
 */
function makeInteraction(calls: readonly ConformanceCall[], responseId: string, status?: Interactions.Interaction['status']) {
  return interaction(
    responseId,
    calls.map((call) => ({ type: 'function_call', id: call.call_id, name: call.tool_name, arguments: call.arguments })),
    status ?? (calls.length === 0 ? 'completed' : 'requires_action'),
  );
}

// Per mode, whether the payload echoes the calls and whether it names the interaction it continues.
describe.each<[string, GeminiInteractionsFormatOptions, { echoesCalls: boolean; continuesResponse: boolean }]>([
  ['previous_interaction_id', { continuation: 'previous_interaction_id' }, { echoesCalls: false, continuesResponse: true }],
  ['stateless', { continuation: 'stateless' }, { echoesCalls: true, continuesResponse: false }],
])('Gemini Interactions adapter conformance (%s)', (_label, options, declared) => {
  const cases = adapterConformanceCases({
    adapter: createGeminiInteractionsAdapter(),
    makeResponse: (calls, responseId) => makeInteraction(calls, responseId),
    formatOptions: () => options,
    readResults,
    errorFlag: true,
    // `function_call.arguments` arrives as an object the SDK parsed.
    argumentFormat: 'json_value',
    readModelText,
    readEchoedCalls,
    readContinuationId: (payload) => ('previous_interaction_id' in payload ? payload.previous_interaction_id : null),
    readItemOrder,
    ...declared,
    // Pending calls of an interaction still running or cut short are not calls the model waits on.
    makeUnfinishedResponses: (calls, responseId) => [
      makeInteraction(calls, responseId, 'in_progress'),
      makeInteraction(calls, responseId, 'incomplete'),
    ],
  });
  for (const { name, run } of cases) it(name, run);
});
