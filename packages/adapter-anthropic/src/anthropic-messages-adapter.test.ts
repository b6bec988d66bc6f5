import { describe, expect, it } from 'vitest';
import { createAnthropicMessagesAdapter, type AnthropicMessagesAdapterOptions } from './anthropic-messages-adapter.js';

describe('createAnthropicMessagesAdapter', () => {
  it('takes a rolling-upgrade revision in an array', () => {
    expect(() => createAnthropicMessagesAdapter({ acceptedAdapterRevisions: ['anthropic-messages-v0'] })).not.toThrow();
  });

  // The factory resolves its options once: a bad one is a TypeError at start-up, never later.
  it.each<[string, unknown]>([
    ['null options', null],
    ['options that are a string', 'anthropic-messages-v0'],
    ['acceptedAdapterRevisions as one string (read character by character before)', { acceptedAdapterRevisions: 'anthropic-messages-v0' }],
    ['argumentLimits that are a string', { argumentLimits: 'x' }],
    ['argumentLimits.maxBytes (the byte bound is maxArgumentBytes)', { argumentLimits: { maxBytes: 1 } }],
    ['a misspelt option', { maxcalls: 8 }],
    ['maxArgumentBytes that is a string', { maxArgumentBytes: '1024' }],
  ])('throws a TypeError for %s', (_label, options) => {
    expect(() => createAnthropicMessagesAdapter(options as AnthropicMessagesAdapterOptions)).toThrow(TypeError);
  });
});
