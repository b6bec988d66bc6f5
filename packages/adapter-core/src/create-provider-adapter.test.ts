import type { FormatToolResultsInput, ParseToolCallsOutcome } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { createProviderAdapter, type ProviderAdapterDefinition } from './create-provider-adapter.js';
import type { AdapterOptions, AdapterSettings } from './resolve-adapter-settings.js';

interface AcmeResponse {
  id: string;
}
interface AcmeOptions {
  mode: 'chat';
}

function acmeDefinition(seen: AdapterSettings[]): ProviderAdapterDefinition<AcmeResponse, string[], AcmeOptions> {
  return {
    provider: 'acme',
    apiFamily: 'chat',
    adapterRevision: 'acme-chat-v2',
    parseToolCalls(response, settings): ParseToolCallsOutcome {
      seen.push(settings);
      return { ok: true, response_id: response.id, calls: [] };
    },
    formatToolResults(input: FormatToolResultsInput<AcmeOptions>, settings) {
      seen.push(settings);
      return { ok: true, payload: [input.options.mode] };
    },
  };
}

describe('createProviderAdapter', () => {
  it('builds a frozen adapter carrying the definition identity', () => {
    const adapter = createProviderAdapter(acmeDefinition([]));
    expect([adapter.provider, adapter.apiFamily, adapter.adapterRevision]).toEqual(['acme', 'chat', 'acme-chat-v2']);
    expect(Object.isFrozen(adapter)).toBe(true);
  });

  it('resolves the options once and hands the same settings to both directions', () => {
    const seen: AdapterSettings[] = [];
    const adapter = createProviderAdapter(acmeDefinition(seen), { maxCalls: 3, acceptedAdapterRevisions: ['acme-chat-v1'] });
    expect(adapter.parseToolCalls({ id: 'resp_1' })).toEqual({ ok: true, response_id: 'resp_1', calls: [] });
    expect(adapter.formatToolResults({ calls: [], results: [], verify: () => ({ ok: true }), options: { mode: 'chat' } })).toEqual({
      ok: true,
      payload: ['chat'],
    });
    adapter.parseToolCalls({ id: 'resp_2' });
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toBe(seen[0]);
    expect(seen[0]?.limits.maxCalls).toBe(3);
    expect([...(seen[0]?.identity.acceptedAdapterRevisions ?? [])]).toEqual(['acme-chat-v2', 'acme-chat-v1']);
    expect(seen[0]?.identity.provider).toBe('acme');
  });

  it('throws a TypeError at creation for a bad option, never later', () => {
    expect(() => createProviderAdapter(acmeDefinition([]), { maxArgumentBytes: 0 })).toThrow(TypeError);
    expect(() => createProviderAdapter(acmeDefinition([]), { acceptedAdapterRevisions: ['has space'] })).toThrow(TypeError);
  });

  it.each<[string, unknown]>([
    ['null options', null],
    ['options that are a string', 'acme-chat-v1'],
    ['acceptedAdapterRevisions that are a string', { acceptedAdapterRevisions: 'acme-chat-v1' }],
    ['argumentLimits that are a string', { argumentLimits: 'x' }],
    ['argumentLimits that are an array', { argumentLimits: [] }],
    ['argumentLimits.maxBytes', { argumentLimits: { maxBytes: 1 } }],
    ['a misspelt option', { maxcalls: 3 }],
    ['maxCalls that is a string', { maxCalls: '3' }],
  ])('throws a TypeError at creation for %s', (_label, options) => {
    expect(() => createProviderAdapter(acmeDefinition([]), options as AdapterOptions)).toThrow(TypeError);
  });

  it('throws a TypeError at creation for a definition without both directions or with a malformed identity', () => {
    const { parseToolCalls: _parse, ...withoutParse } = acmeDefinition([]);
    expect(() => createProviderAdapter(withoutParse as ProviderAdapterDefinition<AcmeResponse, string[], AcmeOptions>)).toThrow(
      new TypeError('definition.parseToolCalls and definition.formatToolResults must be functions'),
    );
    expect(() => createProviderAdapter(null as unknown as ProviderAdapterDefinition<AcmeResponse, string[], AcmeOptions>)).toThrow(
      new TypeError('definition must be an object'),
    );
    expect(() => createProviderAdapter({ ...acmeDefinition([]), provider: 'Acme' })).toThrow(TypeError);
  });
});
