// Type-level proof against openai 6.49.0: what the adapter writes satisfies the SDK's own
// parameter types, and what the SDK returns is accepted by the adapter as is.
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createOpenAIResponsesAdapter,
  type OpenAIResponsesFormatOptions,
  type OpenAIResponsesFunctionCall,
  type OpenAIResponsesFunctionCallOutput,
  type OpenAIResponsesPayload,
  type OpenAIResponsesPreviousResponsePayload,
  type OpenAIResponsesResponse,
  type OpenAIResponsesStatelessPayload,
} from './index.js';

describe('openai SDK types', () => {
  it('function_call_output items are ResponseInputItem.FunctionCallOutput', () => {
    expectTypeOf<OpenAIResponsesFunctionCallOutput>().toExtend<ResponseInputItem.FunctionCallOutput>();
    expectTypeOf<OpenAIResponsesFunctionCallOutput>().toExtend<ResponseInputItem>();
    const item = { type: 'function_call_output', call_id: 'call_1', output: '{}' } satisfies OpenAIResponsesFunctionCallOutput;
    expectTypeOf(item).toExtend<ResponseInputItem.FunctionCallOutput>();
  });

  it('echoed function_call items are ResponseFunctionToolCall input items', () => {
    expectTypeOf<OpenAIResponsesFunctionCall>().toExtend<ResponseFunctionToolCall>();
    expectTypeOf<OpenAIResponsesFunctionCall>().toExtend<ResponseInputItem>();
  });

  it('both payloads spread into responses.create params', () => {
    expectTypeOf<OpenAIResponsesPreviousResponsePayload>().toExtend<Partial<ResponseCreateParamsNonStreaming>>();
    expectTypeOf<OpenAIResponsesStatelessPayload>().toExtend<Partial<ResponseCreateParamsNonStreaming>>();
    expectTypeOf<OpenAIResponsesPayload['input']>().toExtend<ResponseCreateParamsNonStreaming['input']>();
    const payload = {} as OpenAIResponsesPayload;
    const params = { model: 'gpt-5.2', ...payload } satisfies ResponseCreateParamsNonStreaming;
    expectTypeOf(params).toExtend<ResponseCreateParamsNonStreaming>();
  });

  it('the SDK Response is the adapter input, and its output the stateless option', () => {
    expectTypeOf<Response>().toExtend<OpenAIResponsesResponse>();
    const adapter = createOpenAIResponsesAdapter();
    expectTypeOf(adapter.parseToolCalls).toBeCallableWith({} as Response);
    expectTypeOf({ continuation: 'stateless', responseOutput: ({} as Response).output } as const).toExtend<OpenAIResponsesFormatOptions>();
  });

  it('a response written inline, as in a test or a proxy, type-checks without a cast', () => {
    const adapter = createOpenAIResponsesAdapter();
    adapter.parseToolCalls({
      id: 'resp_1',
      status: 'completed',
      output: [
        { type: 'message', id: 'msg_1', status: 'completed' },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_order', arguments: '{}', status: 'completed', caller: null },
      ],
    });
    // @ts-expect-error a field no output item has is still an excess property
    adapter.parseToolCalls({ id: 'resp_1', output: [{ type: 'function_call', call_identifier: 'call_1' }] });
  });
});
