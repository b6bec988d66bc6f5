import type { Message, StopReason } from '@anthropic-ai/sdk/resources/messages/messages';
import { adapterConformanceCases, failingCases, type ConformanceCall, type ConformanceCase, otherFieldsAsText } from '@toolseal/adapter-testing';
import type { ProviderAdapter } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { message } from './__fixtures__/anthropic-messages-fixtures.js';
import {
  createAnthropicMessagesAdapter,
  type AnthropicMessagesFormatOptions,
  type AnthropicMessagesResponse,
  type AnthropicToolResultMessage,
} from './index.js';

type AnthropicAdapter = ProviderAdapter<AnthropicMessagesResponse, AnthropicToolResultMessage, AnthropicMessagesFormatOptions>;

/** The kind of each block in message order: the tool_result blocks must come first, then the text. */
function readItemOrder(payload: AnthropicToolResultMessage) {
  const blocks: readonly { type: string }[] = payload.content;
  return blocks.flatMap((block) =>
    block.type === 'tool_result' ? ['result' as const] : block.type === 'text' ? ['text' as const] : block.type === 'tool_use' ? ['echo' as const] : [],
  );
}

function readResults(payload: AnthropicToolResultMessage) {
  return payload.content.flatMap((block) =>
    block.type === 'tool_result' ? [{ call_id: block.tool_use_id, text: block.content[0].text, is_error: block.is_error }] : [],
  );
}

/** The fields of `value` beyond `known`, each serialized: text where the adapter writes none. */
/**
 * Every text the model reads in the message besides the result texts: the text blocks, and any
 * other block, content part or field, serialized.
 */
function readModelText(payload: AnthropicToolResultMessage): string[] {
  return [
    ...otherFieldsAsText(payload, ['role', 'content']),
    ...payload.content.flatMap((block) =>
      block.type === 'text'
        ? [block.text, ...otherFieldsAsText(block, ['type', 'text'])]
        : block.type === 'tool_result'
          ? [
              ...otherFieldsAsText(block, ['type', 'tool_use_id', 'content', 'is_error']),
              ...otherFieldsAsText(block.content[0], ['type', 'text']),
              ...block.content.slice(1).map((part) => JSON.stringify(part)),
            ]
          : [JSON.stringify(block)],
    ),
  ];
}

/** Built as the SDK's own `Message` type, as `client.messages.create` returns it. */
function makeMessage(calls: readonly ConformanceCall[], responseId: string, stopReason?: StopReason | null): Message {
  const built = message(
    responseId,
    calls.map((call) => ({
      type: 'tool_use',
      id: call.call_id,
      caller: { type: 'direct' },
      name: call.tool_name,
      input: call.arguments,
    })),
  );
  return stopReason === undefined ? built : { ...built, stop_reason: stopReason };
}

/** The kit's cases for `adapter`, described as the shipped adapter's descriptor describes it. */
function conformanceCases(adapter: AnthropicAdapter, options: AnthropicMessagesFormatOptions): ConformanceCase[] {
  return adapterConformanceCases({
    adapter,
    makeResponse: (calls, responseId) => makeMessage(calls, responseId),
    formatOptions: () => options,
    readResults,
    errorFlag: true,
    // `tool_use.input` arrives as an object the SDK parsed.
    argumentFormat: 'json_value',
    // The only text the model reads besides the results is the host's own.
    readModelText,
    hostText: options.text ?? [],
    // A follow-up user message echoes no calls and names no earlier message: the kit checks that
    // the payload holds no tool_use block and no continuation id (the host sends the assistant
    // message itself).
    readEchoedCalls: (payload) => {
      const blocks: readonly { type: string }[] = payload.content;
      return blocks.some((block) => block.type === 'tool_use') ? [{ call_id: 'unexpected tool_use', tool_name: '', arguments: { format: 'json_value', value: {} } }] : [];
    },
    readContinuationId: () => null,
    echoesCalls: false,
    continuesResponse: false,
    // The API refuses a user message whose tool_result blocks do not come first.
    readItemOrder,
    // A stream snapshot before the end (no stop reason), a cut at max_tokens (the last tool_use
    // may be cut short), a paused turn.
    makeUnfinishedResponses: (calls, responseId) => [
      makeMessage(calls, responseId, null),
      makeMessage(calls, responseId, 'max_tokens'),
      makeMessage(calls, responseId, 'pause_turn'),
    ],
  });
}

describe.each<[string, AnthropicMessagesFormatOptions]>([
  ['tool results only', {}],
  ['tool results then text', { text: ['Continue with the refund.'] }],
])('Anthropic Messages adapter conformance (%s)', (_label, options) => {
  for (const { name, run } of conformanceCases(createAnthropicMessagesAdapter(), options)) it(name, run);
});

/**
 * The failure messages of the kit's format cases for `adapter` (its parsing is the shipped
 * adapter's, which the cases above pass, so only a format case can fail).
 */
async function formatFailures(adapter: AnthropicAdapter): Promise<string[]> {
  return failingCases(conformanceCases(adapter, {}), 'format: ');
}

/** The shipped adapter with `formatToolResults` replaced. */
function withFormat(format: AnthropicAdapter['formatToolResults']): AnthropicAdapter {
  const shipped = createAnthropicMessagesAdapter();
  return { provider: shipped.provider, apiFamily: shipped.apiFamily, adapterRevision: shipped.adapterRevision, parseToolCalls: shipped.parseToolCalls, formatToolResults: format };
}

// Broken adapters of review 6 that passed every case of the kit, each built on the shipped one:
// the kit must now fail each of them (the shipped adapter passes every case, above).
describe('the conformance kit fails broken Anthropic adapters (review 6)', () => {
  it('one shared payload object, refilled on every call: conversation A would send the results of B', async () => {
    const shipped = createAnthropicMessagesAdapter();
    const shared: AnthropicToolResultMessage = { role: 'user', content: [] };
    const broken = withFormat((input) => {
      const outcome = shipped.formatToolResults(input);
      if (!outcome.ok) return outcome;
      shared.content.length = 0;
      shared.content.push(...outcome.payload.content);
      return { ok: true, payload: shared };
    });
    const failures = await formatFailures(broken);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.join('\n')).toMatch(/a payload changed after two other turns were formatted/);
  });

  it('tool_result blocks whose toJSON sends the first and last result texts swapped', async () => {
    const shipped = createAnthropicMessagesAdapter();
    const broken = withFormat((input) => {
      const outcome = shipped.formatToolResults(input);
      if (!outcome.ok) return outcome;
      const texts = outcome.payload.content.flatMap((block) => (block.type === 'tool_result' ? [block.content[0].text] : []));
      const swapped = texts.length > 1 ? [texts[texts.length - 1]!, ...texts.slice(1, -1), texts[0]!] : texts;
      let index = 0;
      const content = outcome.payload.content.map((block) => {
        if (block.type !== 'tool_result') return block;
        const sent = swapped[index++]!;
        // The object shows the right text; JSON.stringify, and so the SDK, sends another.
        return Object.defineProperty({ ...block }, 'toJSON', {
          enumerable: false,
          value: () => ({ ...block, content: [{ type: 'text', text: sent }] }),
        });
      });
      return { ok: true, payload: { role: 'user', content } };
    });
    const failures = await formatFailures(broken);
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.join('\n')).toMatch(/reads the payload object otherwise than its JSON/);
  });
});
