// The one handler string outside `data` that reaches the model is `resource_revision`: a tool whose
// revision pattern is as loose as an ETag's must not let a compromised downstream put the call's
// protected values (spec 000: tenant, subject, operation id, idempotency key, receipt) into
// `model_result.provenance`, which `data` already may not carry.
import type { CallContext, PrincipalContext } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { sealResult, type SealResultInput } from './seal-result.js';
import { createToolRegistry } from './tool-registry.js';
import type { ToolSpec } from './tool-spec.js';
import { verifyResult } from './verify-result.js';

const spec: ToolSpec = {
  contract: {
    tool_name: 'get_order',
    effect: 'read',
    input_revision: 'in-1',
    output_revision: 'out-1',
    effect_revision: 'eff-1',
    handler_revision: 'h-1',
    producer_revision: 'p-1',
    policy_revision: 'pol-1',
  },
  source_label: 'orders',
  input_schema: { type: 'object', additionalProperties: false, properties: { order_id: { type: 'string', maxLength: 64 } } },
  output_schema: { type: 'object', additionalProperties: false, properties: { order_ref: { type: 'string', maxLength: 64 } } },
  resource_revision: { pattern: '^[A-Za-z0-9._-]{1,128}$' },
};
const registry = createToolRegistry([spec]);
const digester = createDigester();
const principal: PrincipalContext = { tenant_id: 'tenant-cedar-42', subject_id: 'drafter-00017', roles: [] };
const call: CallContext = {
  provider: 'openai',
  api_family: 'responses',
  response_id: 'resp_1',
  call_id: 'call_1',
  adapter_revision: 'a-1',
  operation_id: 'op-5f2c9e1a-77b1',
  idempotency_key: 'idem-secret-key-991',
};

function input(resourceRevision: string, receipt: string | null = null): SealResultInput {
  return {
    registry,
    tool_name: 'get_order',
    principal,
    call,
    arguments: { order_id: 'ORDER-1' },
    digester,
    subject: { kind: 'data', output: { data: { order_ref: 'ORDER-1' }, resource_revision: resourceRevision, observed_at: '2026-01-01T00:00:00Z', receipt } },
    execution: { delivery: 'fresh' },
    now: () => new Date('2026-01-01T00:00:01Z'),
  };
}

const trusted = { registry, tool_name: 'get_order', principal, call, arguments: { order_id: 'ORDER-1' }, digester };

describe('resource_revision carrying a protected value of the call', () => {
  it.each([
    ['the tenant id', 'tenant-cedar-42', null],
    ['the subject id, in another case', 'rev.DRAFTER-00017', null],
    ['the operation id', 'op-5f2c9e1a-77b1', null],
    ['the idempotency key', 'idem-secret-key-991', null],
    ['the output\'s own receipt', 'rcpt-XYZ-123456', 'rcpt-XYZ-123456'],
  ] as const)('the review: %s is refused (protected_value at /resource_revision)', (_label, revision, receipt) => {
    const { sealed, violations } = sealResult(input(revision, receipt));
    expect(violations).toEqual([{ rule: 'protected_value', path: '/resource_revision' }]);
    expect(sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    expect(JSON.stringify(sealed.model_result)).not.toContain(revision);
  });

  it('an ordinary revision under the same pattern seals and verifies', () => {
    const sealed = sealResult(input('etag-7f3a.v2'));
    expect(sealed.violations).toEqual([]);
    expect(sealed.sealed.model_result.provenance.resource_revision).toBe('etag-7f3a.v2');
    expect(verifyResult(sealed.sealed, trusted)).toEqual({ ok: true });
  });

  it('verifyResult fails provenance for a package whose resource_revision carries one', () => {
    const { sealed } = sealResult(input('etag-7f3a.v2'));
    const forged = {
      ...sealed,
      model_result: { ...sealed.model_result, provenance: { ...sealed.model_result.provenance, resource_revision: 'tenant-cedar-42' } },
    };
    const outcome = verifyResult(forged, trusted);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? [] : outcome.reasons).toContain('provenance');
  });
});
