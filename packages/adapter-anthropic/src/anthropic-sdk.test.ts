// Runtime proof against the real @anthropic-ai/sdk 1.14.0 client: a custom fetch captures every
// request (no network), and the follow-up turn carrying the adapter's message is checked on the wire.
import Anthropic from '@anthropic-ai/sdk';
import { createCapturingFetch, createRecordingVerifier, fakeSealedResult, findProtectedValues } from '@toolseal/adapter-testing';
import { describe, expect, it } from 'vitest';
import { anthropicParallel } from './__fixtures__/anthropic-messages-fixtures.js';
import { createAnthropicMessagesAdapter } from './index.js';

function capturingClient(replies: readonly unknown[]) {
  const { fetch, captured } = createCapturingFetch(replies);
  return { client: new Anthropic({ apiKey: 'sk-ant-test', fetch, maxRetries: 0 }), captured };
}

const finalReply = {
  ...anthropicParallel,
  id: 'msg_final',
  content: [{ type: 'text', text: 'Done.', citations: null }],
  stop_reason: 'end_turn',
};

describe('anthropic client round trip', () => {
  it('sends the tool_result message through messages.create unchanged, results before text', async () => {
    const { client, captured } = capturingClient([anthropicParallel, finalReply]);
    const question = { role: 'user' as const, content: 'Refund order ORDER-C7.' };
    const first = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages: [question] });

    const adapter = createAnthropicMessagesAdapter();
    const parsed = adapter.parseToolCalls(first);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const results = parsed.calls.map((call, index) => fakeSealedResult(call, index === 1 ? { status: 'failed' } : {}));
    const formatted = adapter.formatToolResults({
      calls: parsed.calls,
      results: [...results].reverse(),
      verify: createRecordingVerifier().verify,
      options: { text: ['Please continue.'] },
    });
    expect(formatted.ok).toBe(true);
    if (!formatted.ok) return;

    await client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 1024,
      messages: [question, { role: 'assistant', content: first.content }, formatted.payload],
    });

    expect(captured).toHaveLength(2);
    const request = captured[1]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    const body = JSON.parse(request.body) as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    expect(body.messages).toHaveLength(3);
    const sent = body.messages[2]!;
    expect(sent).toEqual(formatted.payload);
    expect(sent.content.map((block) => block['type'])).toEqual(['tool_result', 'tool_result', 'tool_result', 'text']);
    expect(sent.content.slice(0, 3).map((block) => block['tool_use_id'])).toEqual(parsed.calls.map((call) => call.call_id));
    // Every tool_use of the assistant turn is answered, in order.
    const asked = body.messages[1]!.content.filter((block) => block['type'] === 'tool_use').map((block) => block['id']);
    expect(sent.content.slice(0, 3).map((block) => block['tool_use_id'])).toEqual(asked);
    expect(sent.content.slice(0, 3).map((block) => block['is_error'])).toEqual([false, true, false]);
    const texts = sent.content.slice(0, 3).map((block) => (block['content'] as Array<{ text: string }>)[0]!.text);
    expect(texts.map((text) => JSON.parse(text))).toEqual(results.map((result) => result.model_result));
    expect(findProtectedValues(request.body, results)).toEqual([]);
  });
});
