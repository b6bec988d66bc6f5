import { describe, expect, it } from 'vitest';
import { createRecordingVerifier } from './create-recording-verifier.js';
import { fakeSealedResult } from './fake-sealed-result.js';
import { fakeToolCall } from './fake-tool-call.js';

const call = fakeToolCall();

describe('createRecordingVerifier', () => {
  it('accepts by default and records every call in order', () => {
    const recorder = createRecordingVerifier();
    const first = fakeSealedResult(call);
    const second = fakeSealedResult({ ...call, call_id: 'c2' });
    expect(recorder.verify(first, call)).toEqual({ ok: true });
    expect(recorder.verify(second, call, { canonical_model_result: '{"data":null}' })).toEqual({ ok: true });
    expect(recorder.seen).toEqual([
      { sealed: first, call, canonical_model_result: null },
      { sealed: second, call, canonical_model_result: '{"data":null}' },
    ]);
    expect(recorder.seen[0]?.sealed).toBe(first);
  });

  it('answers as decide says', () => {
    const { verify } = createRecordingVerifier((sealed) =>
      sealed.protected_audit.provider_context.call_id === 'c1' ? { ok: false, reasons: ['call_binding'] } : { ok: true },
    );
    expect(verify(fakeSealedResult(call), call)).toEqual({ ok: false, reasons: ['call_binding'] });
    expect(verify(fakeSealedResult({ ...call, call_id: 'c2' }), call)).toEqual({ ok: true });
  });
});
