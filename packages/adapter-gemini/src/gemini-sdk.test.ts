// Runtime proof against the real @google/genai 2.32.0 client: a custom fetch captures every request
// (no network), and the follow-up interaction carrying the adapter's steps is checked on the wire.
import { GoogleGenAI } from '@google/genai';
import { createCapturingFetch, createRecordingVerifier, fakeSealedResult, findProtectedValues } from '@toolseal/adapter-testing';
import { describe, expect, it } from 'vitest';
import { geminiParallel } from './__fixtures__/gemini-interactions-fixtures.js';
import { createGeminiInteractionsAdapter, type GeminiInteractionsFormatOptions } from './index.js';

function capturingClient(replies: readonly unknown[]) {
  const { fetch, captured } = createCapturingFetch(replies);
  return { ai: new GoogleGenAI({ apiKey: 'test-key', httpOptions: { fetch } }), captured };
}

const finalReply = {
  id: 'v1_final',
  status: 'completed',
  steps: [{ type: 'model_output', content: [{ type: 'text', text: 'Done.' }] }],
};

describe('gemini client round trip', () => {
  it.each<[string, GeminiInteractionsFormatOptions]>([
    ['previous_interaction_id', { continuation: 'previous_interaction_id' }],
    ['stateless', { continuation: 'stateless' }],
  ])('sends the %s follow-up through interactions.create unchanged', async (_label, options) => {
    const { ai, captured } = capturingClient([geminiParallel, finalReply]);
    const first = await ai.interactions.create({ model: 'gemini-2.5-flash', input: 'Refund order ORDER-C7.' });

    const adapter = createGeminiInteractionsAdapter();
    const parsed = adapter.parseToolCalls(first);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.calls).toHaveLength(3);
    const results = parsed.calls.map((call, index) => fakeSealedResult(call, index === 2 ? { status: 'unknown' } : {}));
    const formatted = adapter.formatToolResults({
      calls: parsed.calls,
      results: [...results].reverse(),
      verify: createRecordingVerifier().verify,
      options,
    });
    expect(formatted.ok).toBe(true);
    if (!formatted.ok) return;

    await ai.interactions.create({ model: 'gemini-2.5-flash', ...formatted.payload });

    expect(captured).toHaveLength(2);
    const request = captured[1]!;
    expect(request.method).toBe('POST');
    expect(new URL(request.url).pathname).toMatch(/\/interactions$/);
    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(body['input']).toEqual(formatted.payload.input);
    if (options.continuation === 'previous_interaction_id') {
      expect(body['previous_interaction_id']).toBe('v1_ChdpbnRlcmFjdGlvbi0wMDAwMDAwMDAy');
    } else {
      expect(body).not.toHaveProperty('previous_interaction_id');
    }
    const sentResults = (body['input'] as Array<Record<string, unknown>>).filter((step) => step['type'] === 'function_result');
    expect(sentResults.map((step) => step['call_id'])).toEqual(parsed.calls.map((call) => call.call_id));
    expect(sentResults.map((step) => step['is_error'])).toEqual([false, false, true]);
    const texts = sentResults.map((step) => (step['result'] as Array<{ text: string }>)[0]!.text);
    expect(texts.map((text) => JSON.parse(text))).toEqual(results.map((result) => result.model_result));
    expect(findProtectedValues(request.body, results)).toEqual([]);
  });
});

// Review 2 (06_number_rounding_json_value): the SDK parses `arguments` with JSON.parse, which
// rounds 9007199254740993 to 9007199254740992 and 5999.9999999999999 to 6000 without a word. The
// OpenAI adapter keeps the text, and the guard refuses it there (`non_json_value`); here the integer
// is refused the same way (nothing is echoed), and the fraction, which a parsed value cannot show,
// is documented.
describe('gemini client: numbers the SDK rounded', () => {
  /** A real client whose fetch answers `body`, raw wire text (numbers no object literal can hold). */
  function rawClient(body: string): GoogleGenAI {
    const fetch = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    return new GoogleGenAI({ apiKey: 'test-key', httpOptions: { fetch } });
  }
  const interaction = (callArguments: string) =>
    `{"id":"v1_int","status":"requires_action","steps":[{"type":"function_call","id":"fc1","name":"create_refund_draft","arguments":${callArguments}}]}`;
  const create = (ai: GoogleGenAI) => ai.interactions.create({ model: 'gemini-2.5-flash', input: 'x' });

  it('refuses an integer beyond 2^53 - 1 the SDK may have rounded (INVALID_ARGUMENTS, non_json_value)', async () => {
    const adapter = createGeminiInteractionsAdapter();
    for (const callArguments of [
      '{"order_id":9007199254740993,"amount":5999.9999999999999}',
      '{"order":{"lines":[{"sku":"A","qty":1},{"sku":"B","qty":-9007199254740993}]}}',
    ]) {
      const first = await create(rawClient(interaction(callArguments)));
      expect(adapter.parseToolCalls(first)).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENTS', reasons: [{ field: '', rule: 'non_json_value' }] },
      });
    }
  });

  it('passes safe integers, and a fraction it cannot tell was rounded (documented)', async () => {
    const first = await create(rawClient(interaction('{"order_id":9007199254740991,"amount":5999.9999999999999}')));
    expect(createGeminiInteractionsAdapter().parseToolCalls(first)).toMatchObject({
      ok: true,
      calls: [{ arguments: { format: 'json_value', value: { order_id: 9007199254740991, amount: 6000 } } }],
    });
  });
});
