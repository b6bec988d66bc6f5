import assert from 'node:assert/strict';
import type { ParseToolCallsOutcome, ToolCall } from '@toolseal/contracts';
import { checkError } from '@toolseal/errors';

/** The codes `parseToolCalls` may refuse a response with. */
const PARSE_ERROR_CODES: readonly string[] = ['MALFORMED_TOOL_CALL', 'INVALID_ARGUMENTS'];

/**
 * Asserts (node:assert) that `outcome` refuses the whole response with a catalogued `code` and
 * exactly one reason, `{ field: '', rule }`.
 */
export function assertParseRefused(outcome: ParseToolCallsOutcome, code: string, rule: string): void {
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
