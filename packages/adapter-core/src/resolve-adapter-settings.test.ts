import { describe, expect, it } from 'vitest';
import { resolveAdapterSettings, type AdapterOptions } from './resolve-adapter-settings.js';
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

  it('throws a TypeError for acceptedAdapterRevisions given as one string, rather than accepting each of its characters', () => {
    const options = { acceptedAdapterRevisions: 'acme-chat-v1' } as unknown as AdapterOptions;
    expect(() => resolveAdapterSettings('acme', 'chat', 'acme-chat-v2', options)).toThrow(
      new TypeError('acceptedAdapterRevisions must be an array of revisions (put a single revision in an array)'),
    );
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'maxCalls=3'],
    ['an array', [['maxCalls', 3]]],
    ['a class instance', new Map([['maxCalls', 3]])],
  ])('throws a TypeError for options that are %s', (_label, options) => {
    expect(() => resolveAdapterSettings('acme', 'chat', 'v2', options as AdapterOptions)).toThrow(
      /^adapter options must be a plain object/,
    );
  });

  it('throws a TypeError for an option it does not know, and for argumentLimits that is not a plain object', () => {
    expect(() => resolveAdapterSettings('acme', 'chat', 'v2', { maxCall: 3 } as AdapterOptions)).toThrow(
      /^adapter options has no option "maxCall"/,
    );
    expect(() => resolveAdapterSettings('acme', 'chat', 'v2', { argumentLimits: 'x' } as unknown as AdapterOptions)).toThrow(
      /^argumentLimits must be a plain object/,
    );
  });

  it('reads options given as undefined members as the defaults', () => {
    const settings = resolveAdapterSettings('acme', 'chat', 'v2', {
      maxCalls: undefined,
      maxArgumentBytes: undefined,
      argumentLimits: undefined,
      acceptedAdapterRevisions: undefined,
    } as unknown as AdapterOptions);
    expect(settings.limits).toEqual(resolveToolCallLimits());
    expect([...settings.identity.acceptedAdapterRevisions]).toEqual(['v2']);
  });
});
