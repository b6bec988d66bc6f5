import { checkError } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { collectToolCalls } from './collect-tool-calls.js';
import { fakeToolCall } from './fake-tool-call.js';
import { rejectMalformedToolCall } from './reject-malformed-tool-call.js';
import { resolveAdapterSettings } from './resolve-adapter-settings.js';

const settings = resolveAdapterSettings('acme', 'chat', 'acme-chat-v1');
const malformed = rejectMalformedToolCall('malformed_response');

describe('collectToolCalls', () => {
  it('starts a collector for the response id and answers what the visitor collected', () => {
    const outcome = collectToolCalls({ ref: 'resp_1', calls: ['c1'] }, 'ref', settings, (response, collector) => {
      expect(response).toEqual({ ref: 'resp_1', calls: ['c1'] });
      return collector.add('c1', 'get_order', { format: 'json_text', text: '{}' });
    });
    // The collector stamps the settings' identity (acme / chat / acme-chat-v1) and the response id.
    expect(outcome).toEqual({ ok: true, response_id: 'resp_1', calls: [fakeToolCall()] });
  });

  it('answers the first rejection the visitor returns', () => {
    const outcome = collectToolCalls({ id: 'resp_1' }, 'id', settings, (_response, collector) => {
      expect(collector.add('c1', 'a', { format: 'json_text', text: '{}' })).toBeNull();
      return collector.add('c1', 'b', { format: 'json_text', text: '{}' });
    });
    expect(!outcome.ok && outcome.error.reasons).toEqual([{ field: '', rule: 'duplicate_call_id' }]);
    expect(!outcome.ok && checkError(outcome.error).ok).toBe(true);
  });

  it.each([
    ['null', null],
    ['a string', 'resp_1'],
    ['an array', ['resp_1']],
    ['a missing id', {}],
    ['an empty id', { id: '' }],
    ['a non-string id', { id: 7 }],
    ['an id over 256 characters', { id: 'r'.repeat(257) }],
    ['an id with a lone surrogate', { id: 'resp_\ud800' }],
    ['an id with a right-to-left override (review)', { id: 'resp_\u202e1' }],
    ['an id with a byte order mark (review)', { id: '\ufeffresp_1' }],
    ['an id ending in a no-break space (review 2)', { id: 'resp_1\u00a0' }],
    ['an id ending in a braille pattern blank (review 2)', { id: 'resp_1\u2800' }],
    ['an id ending in a private-use character (review 5)', { id: 'resp_1\ue000' }],
    ['an id with a right-to-left letter (review 5)', { id: 'resp_\u05d0_12_34' }],
    ['an inherited id', Object.create({ id: 'resp_1' }) as unknown],
  ])('refuses %s without visiting', (_label, response) => {
    let visited = false;
    const outcome = collectToolCalls(response, 'id', settings, () => {
      visited = true;
      return null;
    });
    expect(outcome).toEqual(malformed);
    expect(visited).toBe(false);
  });

  it('accepts an id of exactly 256 characters', () => {
    expect(collectToolCalls({ id: 'r'.repeat(256) }, 'id', settings, () => null).ok).toBe(true);
  });

  it('refuses, never throws, when reading the response throws', () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
      },
    );
    expect(collectToolCalls(hostile, 'id', settings, () => null)).toEqual(malformed);
    const throwingVisitor = () => {
      throw new Error('a getter trap deeper in the response');
    };
    expect(collectToolCalls({ id: 'resp_1' }, 'id', settings, throwingVisitor)).toEqual(malformed);
  });

  it('hands maxCallIdLength to the collector: a call id over it refuses the response', () => {
    const visit = (callId: string) => (_response: object, collector: Parameters<Parameters<typeof collectToolCalls>[3]>[1]) =>
      collector.add(callId, 'a', { format: 'json_text', text: '{}' });
    expect(collectToolCalls({ id: 'resp_1' }, 'id', settings, visit('c'.repeat(64)), { maxCallIdLength: 64 }).ok).toBe(true);
    expect(collectToolCalls({ id: 'resp_1' }, 'id', settings, visit('c'.repeat(65)), { maxCallIdLength: 64 })).toEqual(malformed);
  });

  it('throws a TypeError for a bad maxCallIdLength (a bug in the adapter) instead of refusing every response', () => {
    expect(() => collectToolCalls({ id: 'resp_1' }, 'id', settings, () => null, { maxCallIdLength: 300 })).toThrow(TypeError);
  });
});
