import { describe, expect, it } from 'vitest';
import { formatOptionsOf } from './format-options-of.js';
import { createRecordingVerifier, fakeToolCall } from './testing.js';

const base = { calls: [fakeToolCall()], results: [], verify: createRecordingVerifier().verify };

describe('formatOptionsOf', () => {
  it('returns the options object itself', () => {
    const options = { continuation: 'stateless' };
    expect(formatOptionsOf({ ...base, options })).toBe(options);
    expect(formatOptionsOf({ ...base, options: {} })).toEqual({});
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'stateless'],
    ['a number', 1],
  ])('throws a TypeError naming options for options that are %s', (label, options) => {
    expect(() => formatOptionsOf({ ...base, options })).toThrow(new TypeError(`formatToolResults: options must be an object, got ${label}`));
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
  ])('throws a TypeError naming the input when it is %s', (label, input) => {
    expect(() => formatOptionsOf(input as never)).toThrow(
      new TypeError(`formatToolResults needs { calls, results, verify, options }: got ${label}`),
    );
  });
});
