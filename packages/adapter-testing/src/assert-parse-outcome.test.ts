import { fakeToolCall } from '@toolseal/adapter-core/testing';
import type { ParseToolCallsOutcome } from '@toolseal/contracts';
import { makeError } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { assertParsed, assertParseOutcomeCatalogued, assertParseRefused } from './assert-parse-outcome.js';

const call = fakeToolCall();
const accepted: ParseToolCallsOutcome = { ok: true, response_id: 'resp_1', calls: [call] };
const refused: ParseToolCallsOutcome = {
  ok: false,
  error: makeError('MALFORMED_TOOL_CALL', { reasons: [{ field: '', rule: 'duplicate_call_id' }] }),
};

describe('assertParseRefused', () => {
  it('passes for the expected catalogued code and single root reason', () => {
    expect(() => assertParseRefused(refused, 'MALFORMED_TOOL_CALL', 'duplicate_call_id')).not.toThrow();
  });

  it('fails for an accepted response, another code or another rule', () => {
    expect(() => assertParseRefused(accepted, 'MALFORMED_TOOL_CALL', 'duplicate_call_id')).toThrow(/expected MALFORMED_TOOL_CALL/);
    expect(() => assertParseRefused(refused, 'INVALID_ARGUMENTS', 'duplicate_call_id')).toThrow();
    expect(() => assertParseRefused(refused, 'MALFORMED_TOOL_CALL', 'missing_call_id')).toThrow();
  });

  it('throws a TypeError naming its signature when called without a rule (review 3)', () => {
    // Called as (outcome, code), it failed as if the adapter had given the wrong rule (`rule: undefined`).
    const withoutRule = assertParseRefused as unknown as (outcome: ParseToolCallsOutcome, code: string) => void;
    expect(() => withoutRule(refused, 'MALFORMED_TOOL_CALL')).toThrow(TypeError);
    expect(() => withoutRule(refused, 'MALFORMED_TOOL_CALL')).toThrow(/assertParseRefused\(outcome, code, rule\)/);
    const withoutCode = assertParseRefused as unknown as (outcome: ParseToolCallsOutcome) => void;
    expect(() => withoutCode(refused)).toThrow(TypeError);
  });

  it('fails for an error the catalog does not hold', () => {
    const error = makeError('MALFORMED_TOOL_CALL', { reasons: [{ field: '', rule: 'duplicate_call_id' }] });
    const forged: ParseToolCallsOutcome = { ok: false, error: { ...error, safe_message: 'made up' } };
    expect(() => assertParseRefused(forged, 'MALFORMED_TOOL_CALL', 'duplicate_call_id')).toThrow(/catalogued/);
  });
});

describe('assertParseOutcomeCatalogued', () => {
  it('passes for an accepted response and for parse refusals', () => {
    expect(() => assertParseOutcomeCatalogued(accepted)).not.toThrow();
    expect(() => assertParseOutcomeCatalogued(refused)).not.toThrow();
    const tooBig = { ok: false, error: makeError('INVALID_ARGUMENTS', { reasons: [{ field: '', rule: 'max_bytes' }] }) } as const;
    expect(() => assertParseOutcomeCatalogued(tooBig)).not.toThrow();
  });

  it('fails for a catalogued code a parser must not give', () => {
    expect(() => assertParseOutcomeCatalogued({ ok: false, error: makeError('UNKNOWN_TOOL') })).toThrow(/UNKNOWN_TOOL/);
  });
});

describe('assertParsed', () => {
  it('returns the calls of an accepted response and fails for a refusal', () => {
    expect(assertParsed(accepted)).toEqual([call]);
    expect(() => assertParsed(refused)).toThrow(/expected the response to parse/);
  });
});
