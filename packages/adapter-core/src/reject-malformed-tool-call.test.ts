import { checkError, MALFORMED_CALL_RULES } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { rejectMalformedToolCall, type MalformedToolCallRule } from './reject-malformed-tool-call.js';

const RULES: MalformedToolCallRule[] = [
  'duplicate_call_id',
  'missing_call_id',
  'empty_tool_name',
  'too_many_calls',
  'malformed_response',
];

describe('rejectMalformedToolCall', () => {
  it.each(RULES)('refuses the whole response with a catalogued MALFORMED_TOOL_CALL (%s)', (rule) => {
    const rejection = rejectMalformedToolCall(rule);
    expect(rejection.ok).toBe(false);
    expect(rejection.error.code).toBe('MALFORMED_TOOL_CALL');
    expect(rejection.error.reasons).toEqual([{ field: '', rule }]);
    expect(checkError(rejection.error)).toEqual({ ok: true, error: rejection.error });
  });

  it('uses only rules the catalog allows for MALFORMED_TOOL_CALL', () => {
    for (const rule of RULES) expect(MALFORMED_CALL_RULES).toContain(rule);
  });
});
