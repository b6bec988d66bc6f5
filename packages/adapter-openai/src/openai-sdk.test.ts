// Runtime proof against the real openai 6.49.0 client: a custom fetch captures every request (no
// network), and the follow-up turn carrying the adapter's items is checked on the wire.
import { readFileSync } from 'node:fs';
import {
  createCapturingFetch,
  createRecordingVerifier,
  fakeSealedResult,
  findProtectedValues,
  type CapturedRequest,
} from '@toolseal/adapter-testing';
import type { SealedResult } from '@toolseal/contracts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { canonicalize } from '@toolseal/digests';
import fc from 'fast-check';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { openaiParallel } from './__fixtures__/openai-responses-fixtures.js';
import {
  createOpenAIResponsesAdapter,
  MAX_FUNCTION_CALL_OUTPUT_LENGTH,
  MAX_OPENAI_CALL_ID_LENGTH,
  type OpenAIResponsesFormatOptions,
  type OpenAIResponsesResponse,
} from './index.js';

/** A real client whose fetch answers from `replies`, in order, and records every request. */
function capturingClient(replies: readonly unknown[]) {
  const { fetch, captured } = createCapturingFetch(replies);
  return { client: new OpenAI({ apiKey: 'sk-test', fetch, maxRetries: 0 }), captured };
}

const finalReply = { ...openaiParallel, id: 'resp_final', output: [], output_text: undefined };

// The official OpenAPI components, copied from openai/openai-openapi (see fixtures/provider-specs).
const spec = JSON.parse(
  readFileSync(new URL('../../../fixtures/provider-specs/openai-responses-function-call-items.json', import.meta.url), 'utf8'),
) as { components: { schemas: Record<string, unknown> } };

function compileItemSchema(name: string) {
  const ajv = new Ajv2020({ strict: true, ownProperties: true, allErrors: true });
  addFormats.default(ajv, ['uri']);
  // OpenAPI keywords Ajv does not know, none of which validates: annotations, the `components`
  // container the `$ref`s point into, and `discriminator` (a dispatch hint; the `oneOf` it sits on
  // still validates every branch).
  ajv.addVocabulary(['example', 'x-stainless-const', 'components', 'discriminator']);
  ajv.addSchema({ $id: 'https://toolseal.invalid/openai.json', components: spec.components }, undefined, undefined, false);
  return ajv.compile({ $ref: `https://toolseal.invalid/openai.json#/components/schemas/${name}` });
}

async function firstTurn(): Promise<{
  client: OpenAI;
  captured: readonly CapturedRequest[];
  response: OpenAI.Responses.Response;
}> {
  const { output_text: _ignored, ...wire } = openaiParallel;
  const { client, captured } = capturingClient([wire, finalReply]);
  const response = await client.responses.create({ model: 'gpt-5.2', input: 'Refund order ORDER-C7.' });
  return { client, captured, response };
}

function sealAll(calls: Parameters<typeof fakeSealedResult>[0][]): SealedResult[] {
  return calls.map((call, index) => fakeSealedResult(call, index === 1 ? { status: 'failed' } : {}));
}

describe('openai client round trip', () => {
  it.each<[string, (response: OpenAI.Responses.Response) => OpenAIResponsesFormatOptions]>([
    ['previous_response_id', () => ({ continuation: 'previous_response_id' })],
    ['stateless', (response) => ({ continuation: 'stateless', responseOutput: response.output })],
  ])('sends the %s follow-up through responses.create unchanged', async (_label, optionsFor) => {
    const { client, captured, response } = await firstTurn();
    const adapter = createOpenAIResponsesAdapter();
    const parsed = adapter.parseToolCalls(response);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const results = sealAll(parsed.calls);
    const formatted = adapter.formatToolResults({
      calls: parsed.calls,
      results: [...results].reverse(),
      verify: createRecordingVerifier().verify,
      options: optionsFor(response),
    });
    expect(formatted.ok).toBe(true);
    if (!formatted.ok) return;

    await client.responses.create({ model: 'gpt-5.2', store: optionsFor(response).continuation !== 'stateless', ...formatted.payload });

    expect(captured).toHaveLength(2);
    const request = captured[1]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.openai.com/v1/responses');
    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(body['input']).toEqual(formatted.payload.input);
    if ('previous_response_id' in formatted.payload) {
      expect(body['previous_response_id']).toBe('resp_1b2c3d4e5f60718293a4b5c6d7e8f90a');
    } else {
      expect(body).not.toHaveProperty('previous_response_id');
    }
    const outputs = (body['input'] as Array<{ type: string; call_id: string; output?: string }>).filter(
      (item) => item.type === 'function_call_output',
    );
    expect(outputs.map((item) => item.call_id)).toEqual(parsed.calls.map((call) => call.call_id));
    expect(outputs.map((item) => JSON.parse(item.output!))).toEqual(results.map((result) => result.model_result));
    expect(findProtectedValues(request.body, results)).toEqual([]);
  });

  it('the items match the official OpenAPI schemas (Ajv 2020-12, strict)', async () => {
    const { response } = await firstTurn();
    const adapter = createOpenAIResponsesAdapter();
    const parsed = adapter.parseToolCalls(response);
    if (!parsed.ok) throw new Error('fixture must parse');
    const formatted = adapter.formatToolResults({
      calls: parsed.calls,
      results: sealAll(parsed.calls),
      verify: createRecordingVerifier().verify,
      options: { continuation: 'stateless', responseOutput: response.output },
    });
    if (!formatted.ok) throw new Error('results must format');
    const validateOutput = compileItemSchema('FunctionCallOutputItemParam');
    const validateCall = compileItemSchema('FunctionToolCall');
    let checked = 0;
    for (const item of formatted.payload.input) {
      const validate = item.type === 'function_call_output' ? validateOutput : validateCall;
      expect(validate(item), JSON.stringify(validate.errors)).toBe(true);
      checked++;
    }
    expect(checked).toBe(6);
    // The schemas are not vacuous: a wrong type, or a call id over 64 characters, is refused.
    expect(validateOutput({ type: 'function_call', call_id: 'c', output: '{}' })).toBe(false);
    expect(validateOutput({ type: 'function_call_output', call_id: 'c'.repeat(65), output: '{}' })).toBe(false);
    expect(validateCall({ type: 'function_call', call_id: 'c', name: 'n' })).toBe(false);
  });

  it('answers every call it parses with an item the official schema accepts, and parses no call it could not answer', () => {
    const validateOutput = compileItemSchema('FunctionCallOutputItemParam');
    const adapter = createOpenAIResponsesAdapter();
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,300}$/), (callId) => {
        const response = {
          id: 'resp_1',
          status: 'completed',
          output: [{ type: 'function_call', call_id: callId, name: 'get_order', arguments: '{}', status: 'completed' }],
        } as unknown as OpenAIResponsesResponse;
        const parsed = adapter.parseToolCalls(response);
        expect(parsed.ok).toBe(callId.length <= MAX_OPENAI_CALL_ID_LENGTH);
        if (!parsed.ok) return;
        const formatted = adapter.formatToolResults({
          calls: parsed.calls,
          results: parsed.calls.map((call) => fakeSealedResult(call)),
          verify: createRecordingVerifier().verify,
          options: { continuation: 'previous_response_id' },
        });
        if (!formatted.ok) throw new Error('results must format');
        const item = formatted.payload.input[0];
        expect(validateOutput(item), JSON.stringify(validateOutput.errors)).toBe(true);
      }),
    );
  });

  it('sends the longest output the official schema accepts, and refuses one character more, as the schema does', () => {
    const validateOutput = compileItemSchema('FunctionCallOutputItemParam');
    const adapter = createOpenAIResponsesAdapter();
    const parsed = adapter.parseToolCalls({
      id: 'resp_1',
      output: [{ type: 'function_call', call_id: 'call_1', name: 'get_order', arguments: '{}' }],
    } as unknown as OpenAIResponsesResponse);
    if (!parsed.ok) throw new Error('must parse');
    const [call] = parsed.calls;
    const base = canonicalize(fakeSealedResult(call!, { data: { pad: '' } }).model_result).length;
    for (const extra of [0, 1]) {
      // Two-byte characters as far as a sealable result goes (16 MiB of data), ASCII for the rest.
      const wide = '\u00e9'.repeat(6_000_000);
      const result = fakeSealedResult(call!, { data: { pad: wide + 'x'.repeat(MAX_FUNCTION_CALL_OUTPUT_LENGTH - base - wide.length + extra) } });
      const item = { type: 'function_call_output', call_id: 'call_1', output: canonicalize(result.model_result) };
      const formatted = adapter.formatToolResults({
        calls: parsed.calls,
        results: [result],
        verify: createRecordingVerifier().verify,
        options: { continuation: 'previous_response_id' },
      });
      expect(validateOutput(item)).toBe(extra === 0);
      expect(formatted.ok).toBe(extra === 0);
    }
  });
});
