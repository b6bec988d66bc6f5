import { adapterConformanceCases, type ConformanceCall, otherFieldsAsText } from '@toolseal/adapter-testing';
import type { Response } from 'openai/resources/responses/responses';
import { describe, it } from 'vitest';
import { response } from './__fixtures__/openai-responses-fixtures.js';
import {
  createOpenAIResponsesAdapter,
  MAX_OPENAI_CALL_ID_LENGTH,
  type OpenAIResponsesFormatOptions,
  type OpenAIResponsesPayload,
} from './index.js';

function readResults(payload: OpenAIResponsesPayload) {
  return payload.input.flatMap((item) =>
    item.type === 'function_call_output' ? [{ call_id: item.call_id, text: item.output, is_error: null }] : [],
  );
}

function readEchoedCalls(payload: OpenAIResponsesPayload) {
  return payload.input.flatMap((item) =>
    item.type === 'function_call'
      ? [{ call_id: item.call_id, tool_name: item.name, arguments: { format: 'json_text' as const, text: item.arguments } }]
      : [],
  );
}

/** The kind of each input item in order: the echoed calls come before their outputs. */
function readItemOrder(payload: OpenAIResponsesPayload) {
  return payload.input.flatMap((item) =>
    item.type === 'function_call_output' ? ['result' as const] : item.type === 'function_call' ? ['echo' as const] : [],
  );
}

/** The fields of `value` beyond `known`, each serialized: text where the adapter writes none. */
/**
 * Every text the model could read in the payload besides the outputs and the echoed calls: any
 * other item or field, serialized. The adapter writes none (the host adds its own items later).
 */
function readModelText(payload: OpenAIResponsesPayload): string[] {
  return [
    ...otherFieldsAsText(payload, ['input', 'previous_response_id']),
    ...payload.input.flatMap((item) =>
      item.type === 'function_call_output'
        ? otherFieldsAsText(item, ['type', 'call_id', 'output'])
        : item.type === 'function_call'
          ? otherFieldsAsText(item, ['type', 'id', 'call_id', 'name', 'arguments'])
          : [JSON.stringify(item)],
    ),
  ];
}

/** Built as the SDK's own `Response` type, as `client.responses.create` returns it. */
function makeResponse(
  calls: readonly ConformanceCall[],
  responseId: string,
  status: Response['status'] = 'completed',
  itemStatus: 'completed' | 'incomplete' | 'in_progress' = 'completed',
): Response {
  return {
    ...response(
      responseId,
      calls.map((call) => ({
        type: 'function_call',
        id: `fc_${call.call_id}`,
        call_id: call.call_id,
        name: call.tool_name,
        // The text as the model wrote it: the kit's exact-text cases check it arrives byte for byte.
        arguments: call.arguments_text,
        status: itemStatus,
      })),
    ),
    status,
  };
}

// Per mode, whether the payload echoes the calls and whether it names the response it continues.
describe.each<[string, (output: Response) => OpenAIResponsesFormatOptions, { echoesCalls: boolean; continuesResponse: boolean }]>([
  ['previous_response_id', () => ({ continuation: 'previous_response_id' }), { echoesCalls: false, continuesResponse: true }],
  [
    'stateless',
    (sdkResponse) => ({ continuation: 'stateless', responseOutput: sdkResponse.output }),
    { echoesCalls: true, continuesResponse: false },
  ],
])('OpenAI Responses adapter conformance (%s)', (_label, formatOptions, declared) => {
  const cases = adapterConformanceCases({
    adapter: createOpenAIResponsesAdapter(),
    makeResponse: (calls, responseId) => makeResponse(calls, responseId),
    formatOptions: (sdkResponse) => formatOptions(sdkResponse as Response),
    readResults,
    errorFlag: false,
    // Function call arguments are JSON text (`ResponseFunctionToolCall.arguments`).
    argumentFormat: 'json_text',
    readModelText,
    // FunctionCallOutputItemParam.call_id: maxLength 64 in the official OpenAPI schema.
    maxCallIdLength: MAX_OPENAI_CALL_ID_LENGTH,
    readEchoedCalls,
    readContinuationId: (payload) => ('previous_response_id' in payload ? payload.previous_response_id : null),
    readItemOrder,
    ...declared,
    // Cut at max_output_tokens (the response, its items or both), or not finished yet.
    makeUnfinishedResponses: (calls, responseId) => [
      makeResponse(calls, responseId, 'incomplete', 'incomplete'),
      makeResponse(calls, responseId, 'incomplete'),
      makeResponse(calls, responseId, 'completed', 'incomplete'),
      makeResponse(calls, responseId, 'in_progress', 'in_progress'),
    ],
  });
  for (const { name, run } of cases) it(name, run);
});
