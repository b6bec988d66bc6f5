import { checkError, ERROR_CATALOG, INPUT_RULES } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { GUARD_RULES, guardViolationToError } from './guard-violation.js';

describe('guardViolationToError', () => {
  it('builds a catalogued INVALID_ARGUMENTS error for every guard rule', () => {
    for (const rule of GUARD_RULES) {
      expect(INPUT_RULES).toContain(rule);
      const error = guardViolationToError({ rule, path: '/lines/0' });
      expect(error).toEqual({
        code: 'INVALID_ARGUMENTS',
        category: ERROR_CATALOG.INVALID_ARGUMENTS.category,
        safe_message: ERROR_CATALOG.INVALID_ARGUMENTS.safe_message,
        recovery: 'correct_input',
        retry_after_ms: null,
        reasons: [{ field: '/lines/0', rule }],
      });
      expect(checkError(error).ok).toBe(true);
    }
  });

  it('throws (a bug) for a rule outside the catalog', () => {
    expect(() => guardViolationToError({ rule: 'made_up', path: '' })).toThrow(TypeError);
  });
});
