import type { CallContext, ToolCall } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { createResultVerifier } from './create-result-verifier.js';
import { sealResult } from './seal-result.js';
import { createToolRegistry } from './tool-registry.js';
import type { TrustedContext } from './verify-result.js';

const specs = loadToolSpecs();
const registry = createToolRegistry([specs.getOrder]);
const digester = createDigester();
const principal = { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: [] };
const context: CallContext = {
  provider: 'openai',
  api_family: 'responses',
  response_id: 'resp_9',
  call_id: 'call_9',
  adapter_revision: 'openai-responses-v1',
  operation_id: 'op-9',
  idempotency_key: null,
};
const toolCall: ToolCall = {
  provider: 'openai',
  api_family: 'responses',
  adapter_revision: 'openai-responses-v1',
  response_id: 'resp_9',
  call_id: 'call_9',
  tool_name: 'get_order',
  arguments: { format: 'json_text', text: '{"order_id":"ORDER-C7"}' },
};
const sealed = sealResult({
  registry,
  tool_name: 'get_order',
  principal,
  call: context,
  arguments: { order_id: 'ORDER-C7' },
  subject: { kind: 'error', code: 'NOT_FOUND' },
  execution: { delivery: 'fresh' },
  now: () => '2026-07-19T00:00:01Z',
  digester,
}).sealed;
const records = new Map<string, TrustedContext>([
  ['call_9', { registry, tool_name: 'get_order', principal, call: context, arguments: { order_id: 'ORDER-C7' }, digester }],
]);
const verify = createResultVerifier((call) => records.get(call.call_id));

describe('createResultVerifier', () => {
  it('verifies a result against the host record of its call', () => {
    expect(verify(sealed, toolCall)).toEqual({ ok: true });
  });

  it('fails a call the host does not know', () => {
    expect(verify(sealed, { ...toolCall, call_id: 'call_unknown' })).toEqual({ ok: false, reasons: ['provider_context'] });
  });

  it('fails when the adapter call disagrees with the host record', () => {
    expect(verify(sealed, { ...toolCall, response_id: 'resp_other' })).toEqual({ ok: false, reasons: ['provider_context'] });
    expect(verify(sealed, { ...toolCall, adapter_revision: 'openai-responses-v0' })).toEqual({ ok: false, reasons: ['provider_context'] });
    expect(verify(sealed, { ...toolCall, tool_name: 'kb_search' })).toEqual({ ok: false, reasons: ['tool_contract'] });
  });

  it('passes the text the adapter sends on to verifyResult', () => {
    const text = canonicalize(sealed.model_result);
    expect(verify(sealed, toolCall, { canonical_model_result: text })).toEqual({ ok: true });
    expect(verify(sealed, toolCall, { canonical_model_result: `${text} ` })).toEqual({ ok: false, reasons: ['result_digest', 'call_binding'] });
  });

  it('merges the package reasons, in canonical order', () => {
    const tampered = structuredClone(sealed);
    tampered.protected_audit.binding.result_sha256 = '0'.repeat(64);
    expect(verify(tampered, { ...toolCall, tool_name: 'kb_search' })).toEqual({ ok: false, reasons: ['tool_contract', 'result_digest'] });
  });
});
