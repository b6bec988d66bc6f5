import { describe, expect, it } from 'vitest';
import { resolveAdapterSettings } from './resolve-adapter-settings.js';
import { resolveToolCallLimits } from './resolve-tool-call-limits.js';

describe('resolveAdapterSettings', () => {
  it('resolves identity and limits once, frozen', () => {
    const settings = resolveAdapterSettings('acme', 'chat', 'acme-chat-v2', {
      acceptedAdapterRevisions: ['acme-chat-v1'],
      maxCalls: 3,
    });
    expect(settings.identity).toMatchObject({ provider: 'acme', apiFamily: 'chat', adapterRevision: 'acme-chat-v2' });
    expect([...settings.identity.acceptedAdapterRevisions]).toEqual(['acme-chat-v2', 'acme-chat-v1']);
    expect(settings.limits).toEqual(resolveToolCallLimits({ maxCalls: 3 }));
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('uses the defaults without options', () => {
    expect(resolveAdapterSettings('acme', 'chat', 'acme-chat-v2').limits).toEqual(resolveToolCallLimits());
  });

  it('throws a TypeError for a bad revision or a bad bound', () => {
    expect(() => resolveAdapterSettings('acme', 'chat', 'v2', { acceptedAdapterRevisions: [''] })).toThrow(TypeError);
    expect(() => resolveAdapterSettings('acme', 'chat', 'v2', { maxCalls: 0 })).toThrow(TypeError);
  });
});
