import { adapterConformanceCases } from '@toolseal/adapter-testing';
import { describe, it } from 'vitest';
import { message } from './__fixtures__/anthropic-messages-fixtures.js';
import { createAnthropicMessagesAdapter, type AnthropicMessagesFormatOptions, type AnthropicToolResultMessage } from './index.js';

function readResults(payload: AnthropicToolResultMessage) {
  return payload.content.flatMap((block) =>
    block.type === 'tool_result' ? [{ call_id: block.tool_use_id, text: block.content[0].text, is_error: block.is_error }] : [],
  );
}

describe.each<[string, AnthropicMessagesFormatOptions]>([
  ['tool results only', {}],
  ['tool results then text', { text: ['Continue with the refund.'] }],
])('Anthropic Messages adapter conformance (%s)', (_label, options) => {
  const cases = adapterConformanceCases({
    adapter: createAnthropicMessagesAdapter(),
    // Built as the SDK's own `Message` type, as `client.messages.create` returns it.
    makeResponse: (calls, responseId) =>
      message(
        responseId,
        calls.map((call) => ({
          type: 'tool_use',
          id: call.call_id,
          caller: { type: 'direct' },
          name: call.tool_name,
          input: call.arguments,
        })),
      ),
    formatOptions: () => options,
    readResults,
    errorFlag: true,
  });
  for (const { name, run } of cases) it(name, run);
});
