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

describe('anthropic client stream snapshots', () => {
  /** A real client whose fetch answers one server-sent event stream of `events`. */
  function streamingClient(events: ReadonlyArray<Record<string, unknown> & { type: string }>): Anthropic {
    const body = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
    const fetch = async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    return new Anthropic({ apiKey: 'sk-ant-test', fetch, maxRetries: 0 });
  }

  const start = {
    type: 'message_start',
    message: { id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } },
  };
  const toolStart = {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'tool_use', id: 'toolu_01', name: 'create_refund_draft', input: {}, caller: { type: 'direct' } },
  };

  it('refuses a snapshot taken before the stream ended, whose input lost a cut value, kept as the SDK made it or stored as JSON', async () => {
    const client = streamingClient([
      start,
      toolStart,
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"order_id":"ORDER-7","amount":1' } },
    ]);
    const stream = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: [{ role: 'user', content: 'Refund ORDER-7.' }] });
    // What a host holding on to the live snapshot sees (a UI, a timeout, a crash before the end).
    let snapshot: typeof stream.currentMessage;
    stream.on('inputJson', () => {
      snapshot = stream.currentMessage;
    });
    await expect(stream.finalMessage()).rejects.toThrow();
    if (snapshot === undefined) throw new Error('the stream must have started a tool_use block');
    expect(snapshot.stop_reason).toBeNull();
    const stored = JSON.parse(JSON.stringify(snapshot)) as typeof snapshot;
    // The partial-JSON parser dropped the cut `amount`: executing this would refund the wrong amount.
    expect(stored.content[0]).toMatchObject({ type: 'tool_use', input: { order_id: 'ORDER-7' } });
    const adapter = createAnthropicMessagesAdapter();
    for (const message of [snapshot, stored]) {
      const outcome = adapter.parseToolCalls(message);
      expect(!outcome.ok && [outcome.error.code, outcome.error.reasons]).toEqual(['MALFORMED_TOOL_CALL', [{ field: '', rule: 'malformed_response' }]]);
    }
  });

  it('parses the final message of a finished stream', async () => {
    const client = streamingClient([
      start,
      toolStart,
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"order_id":"ORDER-7",' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"amount":100}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    ]);
    const stream = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: [{ role: 'user', content: 'Refund ORDER-7.' }] });
    const message = await stream.finalMessage();
    const outcome = createAnthropicMessagesAdapter().parseToolCalls(JSON.parse(JSON.stringify(message)) as typeof message);
    expect(outcome.ok && outcome.calls.map((call) => call.arguments)).toEqual([{ format: 'json_value', value: { order_id: 'ORDER-7', amount: 100 } }]);
  });
});

// Review 2 (06_number_rounding_json_value): the SDK parses `input` with JSON.parse, which rounds
// 9007199254740993 to 9007199254740992 and 5999.9999999999999 to 6000 without a word. The OpenAI
// adapter keeps the text, and the guard refuses it there (`non_json_value`); here the integer is
// refused the same way, and the fraction, which a parsed value cannot show, is documented.
describe('anthropic client: numbers the SDK rounded', () => {
  /** A real client whose fetch answers `body`, raw wire text (numbers no object literal can hold). */
  function rawClient(body: string): Anthropic {
    const fetch = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    return new Anthropic({ apiKey: 'sk-ant-test', fetch, maxRetries: 0 });
  }
  const message = (input: string) =>
    `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"create_refund_draft","input":${input},"caller":{"type":"direct"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`;
  const create = (client: Anthropic) => client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });

  it('refuses an integer beyond 2^53 - 1 the SDK may have rounded (INVALID_ARGUMENTS, non_json_value)', async () => {
    const adapter = createAnthropicMessagesAdapter();
    for (const input of [
      '{"order_id":9007199254740993,"amount":5999.9999999999999}',
      '{"order":{"lines":[{"sku":"A","qty":1},{"sku":"B","qty":-9007199254740993}]}}',
    ]) {
      const first = await create(rawClient(message(input)));
      expect(first.content[0]).toMatchObject({ type: 'tool_use' });
      expect(adapter.parseToolCalls(first)).toMatchObject({
        ok: false,
        error: { code: 'INVALID_ARGUMENTS', reasons: [{ field: '', rule: 'non_json_value' }] },
      });
    }
  });

  it('passes safe integers, and a fraction it cannot tell was rounded (documented)', async () => {
    const first = await create(rawClient(message('{"order_id":9007199254740991,"amount":5999.9999999999999}')));
    expect(createAnthropicMessagesAdapter().parseToolCalls(first)).toMatchObject({
      ok: true,
      calls: [{ arguments: { format: 'json_value', value: { order_id: 9007199254740991, amount: 6000 } } }],
    });
  });
});
