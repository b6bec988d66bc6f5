import assert from 'node:assert/strict';
import type { ParseToolCallsOutcome, ToolCall } from '@toolseal/contracts';
import { checkError } from '@toolseal/errors';

/** The codes `parseToolCalls` may refuse a response with. */
const PARSE_ERROR_CODES: readonly string[] = ['MALFORMED_TOOL_CALL', 'INVALID_ARGUMENTS'];

/**
 * Asserts (node:assert) that `outcome` refuses the whole response with a catalogued `code` and
 * exactly one reason, `{ field: '', rule }`:
 *
 * ```ts
 * assertParseRefused(adapter.parseToolCalls(response), 'MALFORMED_TOOL_CALL', 'duplicate_call_id');
 * ```
 *
 * `code` is `MALFORMED_TOOL_CALL` or `INVALID_ARGUMENTS`; `rule` is the reason's rule
 * (`duplicate_call_id`, `missing_call_id`, `empty_tool_name`, `too_many_calls`,
 * `malformed_response`; `max_bytes`, `non_json_value`). Both are required: a call without `rule`
 * (or with a `code` or `rule` that is not a string) throws a `TypeError` naming the signature,
 * rather than failing as if the adapter had given the wrong rule.
 */
export function assertParseRefused(outcome: ParseToolCallsOutcome, code: string, rule: string): void {
  if (typeof code !== 'string' || typeof rule !== 'string') {
    throw new TypeError(
      `assertParseRefused(outcome, code, rule): code and rule must both be strings, e.g. ('MALFORMED_TOOL_CALL', 'malformed_response'); got code ${String(JSON.stringify(code))} and rule ${String(JSON.stringify(rule))}`,
    );
  }
  assert.equal(outcome.ok, false, `expected ${code}/${rule}, got ${JSON.stringify(outcome)}`);
  if (outcome.ok) return;
  assert.ok(checkError(outcome.error).ok, 'the refusal must be a catalogued error');
  assert.equal(outcome.error.code, code);
  assert.deepEqual(outcome.error.reasons, [{ field: '', rule }]);
}

/**
 * Asserts that `outcome` is either accepted or a catalogued `MALFORMED_TOOL_CALL` /
 * `INVALID_ARGUMENTS` refusal: what every outcome of a fuzzed response must be.
 */
export function assertParseOutcomeCatalogued(outcome: ParseToolCallsOutcome): void {
  if (outcome.ok) return;
  assert.ok(checkError(outcome.error).ok, `not a catalogued error: ${JSON.stringify(outcome.error)}`);
  assert.ok(PARSE_ERROR_CODES.includes(outcome.error.code), `unexpected code ${outcome.error.code}`);
}

/** Asserts that `outcome` accepted the response and returns its calls. */
export function assertParsed(outcome: ParseToolCallsOutcome): ToolCall[] {
  assert.ok(outcome.ok, `expected the response to parse, got ${JSON.stringify(outcome)}`);
  return outcome.calls;
}
