import { describe, expect, it } from 'vitest';
import { readHandlerOutcome, readStatusOutcome } from './read-handler-outcome.js';

describe('readHandlerOutcome', () => {
  it('removes kind from a data envelope and keeps everything else, extra keys included', () => {
    const read = readHandlerOutcome({ kind: 'data', data: { a: 1 }, status: 'succeeded' }, 'data');
    expect(read.kind).toBe('data');
    if (read.kind !== 'data') return;
    expect(read.envelope).toEqual({ data: { a: 1 }, status: 'succeeded' });
  });

  it('keeps accessors as accessors (never invoked) and the prototype of a class instance', () => {
    let invoked = false;
    const withGetter = Object.defineProperty({ kind: 'data' }, 'data', {
      enumerable: true,
      get: () => {
        invoked = true;
        return {};
      },
    });
    const read = readHandlerOutcome(withGetter, 'data');
    if (read.kind !== 'data') throw new Error('expected data');
    expect(typeof Object.getOwnPropertyDescriptor(read.envelope as object, 'data')?.get).toBe('function');
    expect(invoked).toBe(false);

    class Envelope {
      kind = 'data';
      data = {};
    }
    const instance = readHandlerOutcome(new Envelope(), 'data');
    if (instance.kind !== 'data') throw new Error('expected data');
    expect(Object.getPrototypeOf(instance.envelope)).toBe(Envelope.prototype);
  });

  it('keeps an own __proto__ key as an own key, for the output contract to refuse', () => {
    const read = readHandlerOutcome(JSON.parse('{"kind":"data","data":{},"__proto__":{"admin":true}}'), 'data');
    if (read.kind !== 'data') throw new Error('expected data');
    expect(Object.hasOwn(read.envelope as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(read.envelope)).toBe(Object.prototype);
  });

  it('copies a plain envelope into a new object, leaving the handler\'s object alone', () => {
    const answer = Object.freeze({ kind: 'data', data: { a: 1 }, resource_revision: 'r' });
    const read = readHandlerOutcome(answer, 'data');
    if (read.kind !== 'data') throw new Error('expected data');
    expect(read.envelope).not.toBe(answer);
    expect(read.envelope).toEqual({ data: { a: 1 }, resource_revision: 'r' });
    expect(Object.keys(answer)).toContain('kind');
  });

  it('reads catalogued errors a handler may answer with', () => {
    expect(readHandlerOutcome({ kind: 'error', code: 'NOT_FOUND' }, 'data')).toEqual({ kind: 'error', code: 'NOT_FOUND' });
    expect(readHandlerOutcome({ kind: 'error', code: 'RATE_LIMIT', retryAfterMs: 10 }, 'data')).toEqual({
      kind: 'error',
      code: 'RATE_LIMIT',
      retryAfterMs: 10,
    });
    expect(
      readHandlerOutcome({ kind: 'error', code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'amount_mismatch', extra: 1 }] }, 'data'),
    ).toEqual({ kind: 'error', code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] });
  });

  it.each([
    ['null', null],
    ['an array', [{ kind: 'data' }]],
    ['a function', () => ({ kind: 'data' })],
    ['no kind', { data: {} }],
    ['a getter for kind', Object.defineProperty({}, 'kind', { get: () => 'data', enumerable: true })],
    ['a code handlers may not use', { kind: 'error', code: 'OUTCOME_UNKNOWN' }],
    ['an inherited code name', { kind: 'error', code: 'toString' }],
    ['RATE_LIMIT without retry', { kind: 'error', code: 'RATE_LIMIT' }],
    ['retry on NOT_FOUND', { kind: 'error', code: 'NOT_FOUND', retryAfterMs: 1 }],
    ['a rule outside the catalog', { kind: 'error', code: 'RULE_REJECTED', reasons: [{ field: '/a', rule: 'because' }] }],
    ['an attacker-chosen field', { kind: 'error', code: 'RULE_REJECTED', reasons: [{ field: '/a b', rule: 'rule_violation' }] }],
    ['reasons that are not an array', { kind: 'error', code: 'RULE_REJECTED', reasons: 'many' }],
    ['17 reasons', { kind: 'error', code: 'RULE_REJECTED', reasons: Array.from({ length: 17 }, () => ({ field: '', rule: 'rule_violation' })) }],
    ['a throwing proxy', new Proxy({}, { ownKeys: () => { throw new Error('trap'); } })],
  ])('is garbage for %s', (_name, value) => {
    expect(readHandlerOutcome(value, 'data')).toEqual({ kind: 'garbage' });
  });
});

describe('readStatusOutcome', () => {
  it('reads committed, not_committed and everything else as unknown', () => {
    expect(readStatusOutcome({ kind: 'committed', data: {} })).toEqual({ kind: 'data', envelope: { data: {} } });
    expect(readStatusOutcome({ kind: 'not_committed' })).toEqual({ kind: 'not_committed' });
    expect(readStatusOutcome({ kind: 'data', data: {} })).toEqual({ kind: 'unknown' });
    expect(readStatusOutcome({ kind: 'error', code: 'NOT_FOUND' })).toEqual({ kind: 'unknown' });
    expect(readStatusOutcome(undefined)).toEqual({ kind: 'unknown' });
  });
});
