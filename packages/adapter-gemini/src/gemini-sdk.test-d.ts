// Type-level proof against @google/genai 2.32.0: what the adapter writes satisfies the SDK's own
// Interactions parameter types, and what the SDK returns is accepted by the adapter as is.
import type { GoogleGenAIInteraction, Interactions } from '@google/genai';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createGeminiInteractionsAdapter,
  type GeminiFunctionCallStep,
  type GeminiFunctionResultStep,
  type GeminiInteractionsPayload,
  type GeminiInteractionsResponse,
  type GeminiPreviousInteractionPayload,
  type GeminiStatelessPayload,
  type GeminiTextContent,
} from './index.js';

type CreateParams = Interactions.InteractionCreateParams.CreateModelInteractionParamsNonStreaming;

describe('@google/genai Interactions types', () => {
  it('function_result steps are Interactions.FunctionResultStep', () => {
    expectTypeOf<GeminiFunctionResultStep>().toExtend<Interactions.FunctionResultStep>();
    expectTypeOf<GeminiFunctionResultStep>().toExtend<Interactions.Step>();
    expectTypeOf<GeminiTextContent>().toExtend<Interactions.TextContent>();
    const step = {
      type: 'function_result',
      call_id: 'fc-1',
      name: 'get_order',
      result: [{ type: 'text', text: '{}' }],
      is_error: false,
    } satisfies GeminiFunctionResultStep;
    expectTypeOf(step).toExtend<Interactions.FunctionResultStep>();
  });

  it('echoed function_call steps are Interactions.FunctionCallStep', () => {
    expectTypeOf<GeminiFunctionCallStep>().toExtend<Interactions.FunctionCallStep>();
  });

  it('both payloads spread into interactions.create params', () => {
    expectTypeOf<GeminiPreviousInteractionPayload>().toExtend<Partial<CreateParams>>();
    expectTypeOf<GeminiStatelessPayload>().toExtend<Partial<CreateParams>>();
    const payload = {} as GeminiInteractionsPayload;
    const params = { model: 'gemini-2.5-flash', ...payload } satisfies CreateParams;
    expectTypeOf(params).toExtend<CreateParams>();
  });

  it('the SDK Interaction (and the client’s return type) is the adapter input', () => {
    expectTypeOf<Interactions.Interaction>().toExtend<GeminiInteractionsResponse>();
    expectTypeOf<GoogleGenAIInteraction>().toExtend<GeminiInteractionsResponse>();
    expectTypeOf(createGeminiInteractionsAdapter().parseToolCalls).toBeCallableWith({} as GoogleGenAIInteraction);
  });
});
