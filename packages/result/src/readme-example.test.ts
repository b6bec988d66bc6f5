// The README example, run as written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDigester } from '@toolseal/digests';
import { expect, it } from 'vitest';
import { createToolRegistry, sealResult, verifyResult } from './index.js';

it('the README example seals and verifies', () => {
  const registry = createToolRegistry([
    {
      contract: {
        tool_name: 'get_order', effect: 'read',
        input_revision: 'in-1', output_revision: 'out-1', effect_revision: 'eff-1',
        handler_revision: 'h-1', producer_revision: 'orders-mock-v2', policy_revision: 'pol-1',
      },
      source_label: 'orders',
      input_schema: {
        type: 'object', additionalProperties: false, required: ['order_id'],
        properties: { order_id: { type: 'string', maxLength: 64 } },
      },
      output_schema: {
        type: 'object', additionalProperties: false, required: ['order_ref', 'status'],
        properties: {
          order_ref: { type: 'string', maxLength: 64 },
          status: { type: 'string', enum: ['paid', 'pending', 'refunded'] },
        },
      },
      echo: { '/order_ref': '/order_id' },
      resource_revision: { pattern: '^order-[a-z0-9]+-r[0-9]+$' },
    },
  ]);
  const digester = createDigester();
  const principal = { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: [] };
  const call = {
    provider: 'openai', api_family: 'responses', response_id: 'resp_1', call_id: 'call_1',
    adapter_revision: 'openai-responses-v1', operation_id: 'op-1', idempotency_key: null,
  };
  const args = { order_id: 'ORDER-7' };

  const { sealed, canonical_model_result, violations } = sealResult({
    registry, tool_name: 'get_order', principal, call, arguments: args, digester,
    subject: {
      kind: 'data',
      output: { data: { order_ref: 'ORDER-7', status: 'paid' }, resource_revision: 'order-7-r3', observed_at: '2026-07-19T00:00:00Z' },
    },
    execution: { delivery: 'fresh' },
    now: () => new Date(),
  });
  expect(violations).toEqual([]);
  // Exactly the specification's example result (spec 000, "The model-visible v2 result"), as the
  // JSONC teaching copy without its comments.
  const specExample: unknown = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'spec', 'model-result-success.json'), 'utf8'));
  expect(sealed.model_result).toEqual(specExample);
  expect(canonical_model_result).not.toContain('op-1');
  expect(verifyResult(sealed, { registry, tool_name: 'get_order', principal, call, arguments: args, digester })).toEqual({ ok: true });
  const tampered = structuredClone(sealed);
  (tampered.model_result.data as { status: string }).status = 'refunded';
  expect(verifyResult(tampered, { registry, tool_name: 'get_order', principal, call, arguments: args, digester })).toEqual({
    ok: false,
    reasons: ['result_digest', 'call_binding'],
  });
});
