import { describe, expect, it } from 'vitest';
import { fakeToolCall } from './fake-tool-call.js';

describe('fakeToolCall', () => {
  it('gives a well-formed call of the made-up acme provider', () => {
    expect(fakeToolCall()).toEqual({
      provider: 'acme',
      api_family: 'chat',
      adapter_revision: 'acme-chat-v1',
      response_id: 'resp_1',
      call_id: 'c1',
      tool_name: 'get_order',
      arguments: { format: 'json_text', text: '{}' },
    });
  });

  it('applies overrides and returns a fresh object each time', () => {
    const call = fakeToolCall({ call_id: 'c2', arguments: { format: 'json_value', value: { a: 1 } } });
    expect(call.call_id).toBe('c2');
    expect(call.arguments).toEqual({ format: 'json_value', value: { a: 1 } });
    expect(call.provider).toBe('acme');
    expect(fakeToolCall()).not.toBe(fakeToolCall());
  });
});
