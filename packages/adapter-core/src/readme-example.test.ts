// The README example, run as written (the host's sealed results and verifier replaced by fakes).
import type { FormatToolResultsInput, FormatToolResultsOutcome, ParseToolCallsOutcome } from '@toolseal/contracts';
import { expect, it } from 'vitest';
import {
  collectToolCalls,
  correlateToolResults,
  createProviderAdapter,
  formatOptionsOf,
  readOwnData,
  rejectMalformedToolCall,
  type AdapterOptions,
  type AdapterSettings,
} from './index.js';
import { createRecordingVerifier, fakeSealedResult, fakeToolCall } from './testing.js';

// ---- README example begins
// Wire types of a made-up provider: calls carry JSON text; results go back as `answers`.
interface AcmeResponse {
  id: string;
  calls: Array<{ id: string; name: string; args: string }>;
}
interface AcmeAnswer {
  call_id: string;
  text: string;
  failed: boolean;
}

function parseAcmeToolCalls(response: AcmeResponse, settings: AdapterSettings): ParseToolCallsOutcome {
  // The frame checks the response id, starts the collector and refuses, never throws, on a hostile object.
  return collectToolCalls(response, 'id', settings, (checked, collector) => {
    const calls = readOwnData(checked, 'calls'); // own data only: no getter, no prototype
    if (!Array.isArray(calls)) return rejectMalformedToolCall('malformed_response');
    // Read `length` once and check it before reading any item; the loop never reads it again. A
    // Proxy passes Array.isArray and can answer a short length here and a long one later, or an
    // object whose valueOf changes its answer: only a real array's plain number gets through.
    const count: unknown = calls.length;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return rejectMalformedToolCall('malformed_response');
    if (count > settings.limits.maxCalls) return rejectMalformedToolCall('too_many_calls'); // every Acme item is a call
    for (let index = 0; index < count; index++) {
      const call = readOwnData(calls, index);
      const text = readOwnData(call, 'args');
      if (typeof text !== 'string') return rejectMalformedToolCall('malformed_response');
      const rejection = collector.add(readOwnData(call, 'id'), readOwnData(call, 'name'), { format: 'json_text', text });
      if (rejection !== null) return rejection; // duplicate or missing id, empty name, too many, too big
    }
    return null;
  });
}

function convertToAcmeAnswers(
  input: FormatToolResultsInput<Record<string, never>>,
  settings: AdapterSettings,
): FormatToolResultsOutcome<AcmeAnswer[]> {
  formatOptionsOf(input); // a TypeError naming `options` when the host forgot them
  // Correlates by call id, refuses foreign/missing/duplicate/unknown results, verifies each one.
  const correlated = correlateToolResults(settings.identity, input, settings.limits);
  if (!correlated.ok) return correlated;
  const payload = correlated.results.map((result) => ({
    call_id: result.call.call_id,
    text: result.modelResultText, // canonical JSON of model_result, exactly as verified
    failed: result.isError,
  }));
  return { ok: true, payload };
}

function createAcmeChatAdapter(options: AdapterOptions = {}) {
  return createProviderAdapter(
    {
      provider: 'acme',
      apiFamily: 'chat',
      adapterRevision: 'acme-chat-v1',
      parseToolCalls: parseAcmeToolCalls,
      formatToolResults: convertToAcmeAnswers,
    },
    options,
  );
}

const adapter = createAcmeChatAdapter({ maxCalls: 8 });
const parsed = adapter.parseToolCalls({
  id: 'resp_1',
  calls: [{ id: 'call_1', name: 'get_order', args: '{"order_id":"ORDER-7"}' }],
});
// ---- README example ends

it('the README example parses, and formats verified results in call order', () => {
  expect(parsed).toEqual({
    ok: true,
    response_id: 'resp_1',
    calls: [fakeToolCall({ call_id: 'call_1', arguments: { format: 'json_text', text: '{"order_id":"ORDER-7"}' } })],
  });
  if (!parsed.ok) return;
  const sealed = fakeSealedResult(parsed.calls[0]!, { data: { status: 'paid' } });
  const formatted = adapter.formatToolResults({
    calls: parsed.calls,
    results: [sealed],
    verify: createRecordingVerifier().verify,
    options: {},
  });
  expect(formatted.ok && formatted.payload).toEqual([
    { call_id: 'call_1', text: expect.stringMatching(/^\{"data":\{"status":"paid"\},"error":null,/), failed: false },
  ]);
  const refused = adapter.formatToolResults({
    calls: parsed.calls,
    results: [],
    verify: createRecordingVerifier().verify,
    options: {},
  });
  expect(refused).toEqual({ ok: false, failures: [{ call_id: 'call_1', reason: 'missing_result', verify_reasons: [] }] });
});

it('the README adapter refuses what the collector refuses', () => {
  const repeated = adapter.parseToolCalls({
    id: 'resp_2',
    calls: [
      { id: 'c1', name: 'a', args: '{}' },
      { id: 'c1', name: 'b', args: '{}' },
    ],
  });
  expect(!repeated.ok && repeated.error.reasons).toEqual([{ field: '', rule: 'duplicate_call_id' }]);
  const tooMany = adapter.parseToolCalls({
    id: 'resp_3',
    calls: Array.from({ length: 9 }, (_, index) => ({ id: `c${index}`, name: 'a', args: '{}' })),
  });
  expect(!tooMany.ok && tooMany.error.reasons).toEqual([{ field: '', rule: 'too_many_calls' }]);
});
