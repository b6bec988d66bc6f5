import fc from 'fast-check';
import { expect, it } from 'vitest';
import { makeError } from '@toolseal/errors';

it('returns its input', () => {
  fc.assert(fc.property(fc.string(), (text) => makeError(text) === text));
  expect(makeError('a')).toBe('a');
});
