// Protected values of a call never reach the model through business data (security review,
// finding F3, value half): a handler that copies the principal's tenant, its own receipt or the
// execution's idempotency key into free text is refused as OUTPUT_CONTRACT_VIOLATION.
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import { createMemoryStores, ManualClock } from '@toolseal/audit';
import type { JsonObject } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { createToolRegistry } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, START, toolCall } from './__fixtures__/test-host.js';
import { createDispatcher } from './create-dispatcher.js';
import type { HandlerInput } from './dispatcher-tool.js';

const contract = {
  tool_name: 'get_account',
  effect: 'read' as const,
  input_revision: 'i1',
  output_revision: 'o1',
  effect_revision: 'e1',
  handler_revision: 'h1',
  producer_revision: 'p1',
  policy_revision: 'x1',
};
const text = { type: 'string', maxLength: 200 };

function accountHost(data: (input: HandlerInput) => JsonObject, receipt: string | null = null) {
  const registry = createToolRegistry([
    {
      contract,
      source_label: 'accounts',
      input_schema: { type: 'object', additionalProperties: false, properties: { id: { type: 'string', maxLength: 10 } } },
      output_schema: { type: 'object', additionalProperties: false, properties: { note: text, title: text } },
      resource_revision: { pattern: '^r[0-9]$' },
    },
  ]);
  const clock = new ManualClock(START);
  const digester = createDigester({ key: new Uint8Array(32).fill(3) });
  const stores = createMemoryStores({ clock, digester });
  const dispatcher = createDispatcher({
    registry,
    digester,
    clock,
    stores,
    tools: [{ name: 'get_account', handler: (input) => ({ kind: 'data', data: data(input), resource_revision: 'r1', observed_at: '2026-07-19T00:00:00Z', receipt }) }],
  });
  return { dispatcher, stores };
}

describe('protected values in business data', () => {
  const adapter = createOpenAIResponsesAdapter();
  const principal = { tenant_id: 'tenant-cedar-secret', subject_id: 'subject-0042', roles: [] };

  async function turnOf(host: ReturnType<typeof accountHost>) {
    const parsed = adapter.parseToolCalls({ id: 'resp', output: [{ type: 'function_call', call_id: 'c1', name: 'get_account', arguments: '{}' }] } as never);
    if (!parsed.ok) throw new Error('parse');
    const turn = await host.dispatcher.dispatch(parsed.calls, { principal });
    const formatted = adapter.formatToolResults({ calls: parsed.calls, results: turn.sealed, verify: turn.verify, options: { continuation: 'previous_response_id' } });
    expect(formatted.ok).toBe(true);
    return { result: turn.results[0], payload: JSON.stringify(formatted) };
  }

  it.each([
    ['the tenant id (the review)', () => ({ note: '{"access_token":"x","tenant_id":"tenant-cedar-secret"}' }), 'tenant-cedar-secret', null],
    ['the subject id in upper case', () => ({ title: 'Owner: SUBJECT-0042' }), 'SUBJECT-0042', null],
    ['its own receipt (the review)', () => ({ note: 'rcpt-internal-5' }), 'rcpt-internal-5', 'rcpt-internal-5'],
    ['the operation id', (input: HandlerInput) => ({ note: `op ${input.operation_id}` }), null, null],
  ] as const)('refuses data carrying %s', async (_label, data, leaked, receipt) => {
    const host = accountHost(data, receipt);
    const { result, payload } = await turnOf(host);
    expect(result?.gate).toBe('output_contract');
    expect(result?.sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    expect(result?.violations.some((violation) => violation.rule === 'protected_value')).toBe(true);
    expect(payload).not.toContain(leaked ?? result?.sealed.protected_audit.downstream.operation_id);
    expect(result?.audit_entry).not.toBeNull();
  });

  it('passes the same tool when its data carries none of them', async () => {
    const { result } = await turnOf(accountHost(() => ({ note: 'All good.', title: 'Account' })));
    expect(result?.gate).toBe('sealed');
  });

  it('a write copying its idempotency key into data is refused, and its record turns unknown', async () => {
    const host = createTestHost();
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = async (input) => {
      const outcome = await original(input);
      if (outcome.kind !== 'data') return outcome;
      // Within the contract's pattern ^DRAFT-[A-Z0-9-]{1,58}$, in upper case.
      return { ...outcome, data: { ...outcome.data, draft_ref: `DRAFT-${String(input.idempotency_key).toUpperCase()}` } };
    };
    const call = () => toolCall('create_refund_draft', BASELINE_REFUND);
    const preview = (await host.dispatcher.dispatch([call()], { principal: CEDAR_DRAFTER })).results[0]?.approval_request;
    if (preview === null || preview === undefined) throw new Error('no preview');
    const approvals = [
      { request_sha256: preview.request_sha256, tool_name: 'create_refund_draft', idempotency_key: 'key-0042-a', approved_by: 'lead', expires_at: START + 60_000 },
    ];
    const result = (await host.dispatcher.dispatch([call()], { principal: CEDAR_DRAFTER, approvals })).results[0];
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(result?.gate).toBe('output_contract');
    expect(result?.violations).toContainEqual({ rule: 'protected_value', path: '/data/draft_ref' });
    expect((await host.stores.idempotencyStore.get('key-0042-a'))?.state).toBe('unknown');
  });
});
