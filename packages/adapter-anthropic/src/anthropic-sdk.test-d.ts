// Type-level proof against @anthropic-ai/sdk 1.14.0: what the adapter writes satisfies the SDK's
// own parameter types, and what the SDK returns is accepted by the adapter as is.
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
  UserMessageParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createAnthropicMessagesAdapter,
  type AnthropicMessagesResponse,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolResultMessage,
} from './index.js';

describe('@anthropic-ai/sdk types', () => {
  it('tool_result blocks are ToolResultBlockParam, text blocks TextBlockParam', () => {
    expectTypeOf<AnthropicToolResultBlock>().toExtend<ToolResultBlockParam>();
    expectTypeOf<AnthropicTextBlock>().toExtend<TextBlockParam>();
    expectTypeOf<AnthropicToolResultBlock | AnthropicTextBlock>().toExtend<ContentBlockParam>();
    const block = {
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [{ type: 'text', text: '{}' }],
      is_error: false,
    } satisfies AnthropicToolResultBlock;
    expectTypeOf(block).toExtend<ToolResultBlockParam>();
  });

  it('the payload is a user MessageParam for messages.create', () => {
    expectTypeOf<AnthropicToolResultMessage>().toExtend<UserMessageParam>();
    expectTypeOf<AnthropicToolResultMessage>().toExtend<MessageParam>();
    const payload = {} as AnthropicToolResultMessage;
    const params = {
      model: 'claude-sonnet-5-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Refund ORDER-C7' }, payload],
    } satisfies MessageCreateParamsNonStreaming;
    expectTypeOf(params).toExtend<MessageCreateParamsNonStreaming>();
  });

  it('the SDK Message is the adapter input', () => {
    expectTypeOf<Message>().toExtend<AnthropicMessagesResponse>();
    expectTypeOf(createAnthropicMessagesAdapter().parseToolCalls).toBeCallableWith({} as Message);
  });
});
