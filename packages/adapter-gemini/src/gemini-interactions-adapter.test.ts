import { describe, expect, it } from 'vitest';
import { createGeminiInteractionsAdapter, type GeminiInteractionsAdapterOptions } from './gemini-interactions-adapter.js';

describe('createGeminiInteractionsAdapter', () => {
  it('takes a rolling-upgrade revision in an array', () => {
    expect(() => createGeminiInteractionsAdapter({ acceptedAdapterRevisions: ['gemini-interactions-v0'] })).not.toThrow();
  });

  // The factory resolves its options once: a bad one is a TypeError at start-up, never later.
  it.each<[string, unknown]>([
    ['null options', null],
    ['options that are a string', 'gemini-interactions-v0'],
    ['acceptedAdapterRevisions as one string (read character by character before)', { acceptedAdapterRevisions: 'gemini-interactions-v0' }],
    ['argumentLimits that are a string', { argumentLimits: 'x' }],
    ['argumentLimits.maxBytes (the byte bound is maxArgumentBytes)', { argumentLimits: { maxBytes: 1 } }],
    ['a misspelt option', { maxcalls: 8 }],
    ['maxArgumentBytes that is a string', { maxArgumentBytes: '1024' }],
  ])('throws a TypeError for %s', (_label, options) => {
    expect(() => createGeminiInteractionsAdapter(options as GeminiInteractionsAdapterOptions)).toThrow(TypeError);
  });
});
