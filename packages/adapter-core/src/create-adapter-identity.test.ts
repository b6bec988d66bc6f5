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
});
