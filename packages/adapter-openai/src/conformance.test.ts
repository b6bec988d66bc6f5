import { adapterConformanceCases } from '@toolseal/adapter-testing';
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

describe.each<[string, (output: ReturnType<typeof response>) => OpenAIResponsesFormatOptions]>([
  ['previous_response_id', () => ({ continuation: 'previous_response_id' })],
  ['stateless', (sdkResponse) => ({ continuation: 'stateless', responseOutput: sdkResponse.output })],
])('OpenAI Responses adapter conformance (%s)', (_label, formatOptions) => {
  const cases = adapterConformanceCases({
    adapter: createOpenAIResponsesAdapter(),
    // Built as the SDK's own `Response` type, as `client.responses.create` returns it.
    makeResponse: (calls, responseId) =>
      response(
        responseId,
        calls.map((call) => ({
          type: 'function_call',
          id: `fc_${call.call_id}`,
          call_id: call.call_id,
          name: call.tool_name,
          arguments: JSON.stringify(call.arguments),
          status: 'completed',
        })),
      ),
    formatOptions: (sdkResponse) => formatOptions(sdkResponse as ReturnType<typeof response>),
    readResults,
    errorFlag: false,
    // FunctionCallOutputItemParam.call_id: maxLength 64 in the official OpenAPI schema.
    maxCallIdLength: MAX_OPENAI_CALL_ID_LENGTH,
  });
  for (const { name, run } of cases) it(name, run);
});
