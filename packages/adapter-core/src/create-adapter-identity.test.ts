import { describe, expect, it } from 'vitest';
import { createAdapterIdentity } from './create-adapter-identity.js';

describe('createAdapterIdentity', () => {
  it('accepts its own revision, and only that one, by default', () => {
    const identity = createAdapterIdentity('acme', 'chat', 'acme-chat-v2');
    expect(identity).toMatchObject({ provider: 'acme', apiFamily: 'chat', adapterRevision: 'acme-chat-v2' });
    expect([...identity.acceptedAdapterRevisions]).toEqual(['acme-chat-v2']);
    expect(Object.isFrozen(identity)).toBe(true);
  });

  it('adds the earlier revisions a host lists for a rolling upgrade', () => {
    const identity = createAdapterIdentity('acme', 'chat', 'acme-chat-v2', ['acme-chat-v1', 'acme-chat-v2']);
    expect([...identity.acceptedAdapterRevisions]).toEqual(['acme-chat-v2', 'acme-chat-v1']);
    expect(identity.adapterRevision).toBe('acme-chat-v2');
  });

  it('accepts revisions of 1 to 64 printable ASCII characters', () => {
    const longest = `~${'r'.repeat(62)}!`;
    expect(createAdapterIdentity('acme', 'chat', 'v2', ['a', longest]).acceptedAdapterRevisions.has(longest)).toBe(true);
  });

  it.each([
    ['an empty revision', ''],
    ['a revision over 64 characters', 'r'.repeat(65)],
    ['a space', 'acme chat'],
    ['a control character', 'acme\nchat'],
    ['a non-ASCII character', 'acme-chät'],
    ['a non-string', 1],
  ])('throws a TypeError for %s: a misconfigured host', (_label, revision) => {
    expect(() => createAdapterIdentity('acme', 'chat', 'acme-chat-v2', [revision as string])).toThrow(TypeError);
  });

  it.each<[string, unknown]>([
    ['a string (each character would be a revision)', 'acme-chat-v1'],
    ['a Set', new Set(['acme-chat-v1'])],
    ['null', null],
    ['an array-like object', { length: 1, 0: 'acme-chat-v1' }],
  ])('throws a TypeError for acceptedAdapterRevisions that are %s', (_label, revisions) => {
    expect(() => createAdapterIdentity('acme', 'chat', 'acme-chat-v2', revisions as string[])).toThrow(
      new TypeError('acceptedAdapterRevisions must be an array of revisions (put a single revision in an array)'),
    );
  });

  it('throws a TypeError for a hole in acceptedAdapterRevisions', () => {
    const sparse: string[] = [];
    sparse[1] = 'acme-chat-v1';
    expect(() => createAdapterIdentity('acme', 'chat', 'acme-chat-v2', sparse)).toThrow(TypeError);
  });

  it.each<[string, [unknown, unknown, unknown]]>([
    ['a provider with capitals', ['Acme', 'chat', 'acme-chat-v2']],
    ['an empty provider', ['', 'chat', 'acme-chat-v2']],
    ['a provider over 32 characters', ['a'.repeat(33), 'chat', 'acme-chat-v2']],
    ['an API family with a space', ['acme', 'chat v2', 'acme-chat-v2']],
    ['an API family that is not a string', ['acme', 7, 'acme-chat-v2']],
    ['an empty revision', ['acme', 'chat', '']],
    ['a revision over 64 characters', ['acme', 'chat', 'r'.repeat(65)]],
  ])('throws a TypeError for %s: a bug in the adapter', (_label, [provider, apiFamily, revision]) => {
    expect(() => createAdapterIdentity(provider as string, apiFamily as string, revision as string)).toThrow(TypeError);
  });

  it('accepts the identities of the provider packages and the ProviderContext bounds', () => {
    for (const [provider, apiFamily, revision] of [
      ['openai', 'responses', 'openai-responses-v1'],
      ['anthropic', 'messages', 'anthropic-messages-v1'],
      ['gemini', 'interactions', 'gemini-interactions-v1'],
      [`a${'b'.repeat(31)}`, `a${'.'.repeat(63)}`, 'r'.repeat(64)],
    ] as const) {
      expect(createAdapterIdentity(provider, apiFamily, revision).provider).toBe(provider);
    }
  });
});

describe('the accepted revisions (review)', () => {
  it('cannot be changed once the identity is made, by any means: the set is private', () => {
    const identity = createAdapterIdentity('openai', 'responses', 'openai-responses-v2', ['openai-responses-v1']);
    const revisions = identity.acceptedAdapterRevisions;
    expect([...revisions]).toEqual(['openai-responses-v2', 'openai-responses-v1']);
    expect(revisions.size).toBe(2);
    expect(revisions.has('openai-responses-v1')).toBe(true);
    expect(() => Set.prototype.add.call(revisions, 'forged-v9')).toThrow(TypeError);
    expect(() => (revisions as unknown as { add: (value: string) => void }).add('forged-v9')).toThrow(TypeError);
    expect(() => Object.assign(revisions, { has: () => true })).toThrow(TypeError);
    expect(revisions.has('forged-v9')).toBe(false);
    const seen: string[] = [];
    revisions.forEach((revision) => seen.push(revision));
    expect(seen).toEqual(['openai-responses-v2', 'openai-responses-v1']);
  });
});
