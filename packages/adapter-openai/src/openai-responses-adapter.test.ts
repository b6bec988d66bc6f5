import { describe, expect, it } from 'vitest';
import { createOpenAIResponsesAdapter, type OpenAIResponsesAdapterOptions } from './openai-responses-adapter.js';

describe('createOpenAIResponsesAdapter', () => {
  it('takes a rolling-upgrade revision in an array', () => {
    expect(() => createOpenAIResponsesAdapter({ acceptedAdapterRevisions: ['openai-responses-v0'] })).not.toThrow();
  });

  // The factory resolves its options once: a bad one is a TypeError at start-up, never later.
  it.each<[string, unknown]>([
    ['null options', null],
    ['options that are a string', 'openai-responses-v0'],
    ['acceptedAdapterRevisions as one string (read character by character before)', { acceptedAdapterRevisions: 'openai-responses-v0' }],
    ['argumentLimits that are a string', { argumentLimits: 'x' }],
    ['argumentLimits.maxBytes (the byte bound is maxArgumentBytes)', { argumentLimits: { maxBytes: 1 } }],
    ['a misspelt option', { maxcalls: 8 }],
    ['maxArgumentBytes that is a string', { maxArgumentBytes: '1024' }],
  ])('throws a TypeError for %s', (_label, options) => {
    expect(() => createOpenAIResponsesAdapter(options as OpenAIResponsesAdapterOptions)).toThrow(TypeError);
  });
});
