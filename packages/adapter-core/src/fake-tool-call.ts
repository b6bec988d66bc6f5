import type { ToolCall } from '@toolseal/contracts';

/**
 * A well-formed `ToolCall` of a made-up provider (`acme` / `chat` / `acme-chat-v1`, response
 * `resp_1`, call `c1`, tool `get_order`, arguments `{}` as text), with `overrides` applied: the
 * call adapter unit tests start from when no real parser is involved.
 */
export function fakeToolCall(overrides: Partial<ToolCall> = {}): ToolCall {
  return {
    provider: 'acme',
    api_family: 'chat',
    adapter_revision: 'acme-chat-v1',
    response_id: 'resp_1',
    call_id: 'c1',
    tool_name: 'get_order',
    arguments: { format: 'json_text', text: '{}' },
    ...overrides,
  };
}
