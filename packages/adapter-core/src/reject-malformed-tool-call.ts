import type { ParseToolCallsOutcome } from '@toolseal/contracts';
import { makeError } from '@toolseal/errors';

/** A refused response: what `parseToolCalls` returns when it refuses the whole response. */
export type ParseRejection = Extract<ParseToolCallsOutcome, { ok: false }>;

/** The `MALFORMED_TOOL_CALL` reason rules an adapter reports for a whole response. */
export type MalformedToolCallRule =
  | 'duplicate_call_id'
  | 'missing_call_id'
  | 'empty_tool_name'
  | 'too_many_calls'
  | 'malformed_response';

/** `MALFORMED_TOOL_CALL` for the whole response, with one reason at the root (`field: ''`). */
export function rejectMalformedToolCall(rule: MalformedToolCallRule): ParseRejection {
  return { ok: false, error: makeError('MALFORMED_TOOL_CALL', { reasons: [{ field: '', rule }] }) };
}
