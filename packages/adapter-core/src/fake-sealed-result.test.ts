import { describe, expect, it } from 'vitest';
import { fakeSealedResult } from './fake-sealed-result.js';
import { fakeToolCall } from './fake-tool-call.js';

const call = fakeToolCall();

describe('fakeSealedResult', () => {
  it('gives a succeeded result echoing the call id, sealed under the call provider context', () => {
    const sealed = fakeSealedResult(call);
    expect(sealed.model_result).toMatchObject({ schema_version: 'tool-model-result-v2', status: 'succeeded', data: { echo: 'c1' }, error: null });
    expect(sealed.protected_audit.provider_context).toEqual({
      provider: 'acme',
      api_family: 'chat',
      response_id: 'resp_1',
      call_id: 'c1',
      adapter_revision: 'acme-chat-v1',
    });
    expect(sealed.protected_audit.tool_contract.tool_name).toBe('get_order');
  });

  it.each([
    ['failed', 'NOT_FOUND', 'not_started'],
    ['unknown', 'OUTCOME_UNKNOWN', 'unknown'],
  ] as const)('gives a %s result an error and no data', (status, code, outcome) => {
    const sealed = fakeSealedResult(call, { status });
    expect(sealed.model_result.status).toBe(status);
    expect(sealed.model_result.data).toBeNull();
    expect(sealed.model_result.error?.code).toBe(code);
    expect(sealed.model_result.execution.outcome).toBe(outcome);
  });

  it('takes data and provider-context overrides', () => {
    const sealed = fakeSealedResult(call, { data: { a: 1 }, providerContext: { adapter_revision: 'acme-chat-v9' } });
    expect(sealed.model_result.data).toEqual({ a: 1 });
    expect(sealed.protected_audit.provider_context.adapter_revision).toBe('acme-chat-v9');
    expect(sealed.protected_audit.provider_context.call_id).toBe('c1');
  });

  it('fills digests with deterministic 64-hex filler, distinct per call and per digest', () => {
    const first = fakeSealedResult(call).protected_audit;
    const again = fakeSealedResult(call).protected_audit;
    const other = fakeSealedResult({ ...call, call_id: 'c2' }).protected_audit;
    expect(first.binding).toEqual(again.binding);
    const digests = [first.principal_ref, ...Object.values(first.binding), ...Object.values(other.binding)];
    for (const digest of digests) expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('replaces a tool name a contract could not hold with a fixed one', () => {
    expect(fakeSealedResult({ ...call, tool_name: 'has space' }).protected_audit.tool_contract.tool_name).toBe('fake_tool');
  });
});
