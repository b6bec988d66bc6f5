// Results the idempotency store cannot hold (spec 000: OUTCOME_UNKNOWN recovers by query_status,
// never a second write; errors carry a conservative state and no internal detail). A downstream
// reference a store refuses is an output contract violation before anything is stored; a sealed
// result the store still refuses as input (StoreInputError) never leaves the record `started`, and
// the model is never told a success that no replay or reconciliation could stand behind.
import { checkIdentifier, StoreInputError } from '@toolseal/audit';
import { ERROR_CATALOG } from '@toolseal/errors';
import { sealResult } from '@toolseal/result';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { DispatchedCall } from './dispatch-types.js';

const context = { principal: CEDAR_DRAFTER };

/** The test host with its refund write needing no approval (the key is the intent). */
function writeHost(options: Parameters<typeof createTestHost>[0] = {}): TestHost {
  return createTestHost({
    ...options,
    tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
  });
}

const keyOf = (result: DispatchedCall): string => result.sealed.protected_audit.downstream.idempotency_key ?? '';

async function notesOf(host: TestHost, result: DispatchedCall): Promise<unknown> {
  const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
  return entry?.body['notes'];
}

function expectCode(result: DispatchedCall, code: keyof typeof ERROR_CATALOG): void {
  expect(result.sealed.model_result.error?.code).toBe(code);
  expect(result.sealed.model_result.status).toBe(ERROR_CATALOG[code].status);
  expect(result.sealed.model_result.execution.outcome).toBe(ERROR_CATALOG[code].outcome);
  expect(result.sealed.model_result.error?.recovery).toBe(ERROR_CATALOG[code].recovery);
  expect(result.sealed.model_result.data).toBeNull();
}

/** Makes the write's handler (and its status query) answer with `receipt`. */
function answerWithReceipt(host: TestHost, receipt: string): void {
  const original = host.impl.create_refund_draft;
  host.impl.create_refund_draft = async (input) => ({ ...(await original(input)), receipt }) as Awaited<ReturnType<typeof original>>;
  const status = host.impl.create_refund_draft_status;
  host.impl.create_refund_draft_status = async (input) => {
    const answer = await status(input);
    return answer.kind === 'committed' ? { ...answer, receipt } : answer;
  };
}

describe('a downstream receipt or status reference no store can hold', () => {
  it('the review (t1): a receipt with NUL is OUTPUT_CONTRACT_VIOLATION, the record turns unknown, and retries query status without writing again', async () => {
    const host = writeHost();
    answerWithReceipt(host, 'R\u0000X');
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(first.gate).toBe('output_contract');
    expectCode(first, 'OUTPUT_CONTRACT_VIOLATION');
    expect(first.violations).toEqual([{ rule: 'downstream_reference', path: '/receipt' }]);
    expect(first.sealed.protected_audit.downstream.receipt).toBeNull();
    expect((await host.stores.idempotencyStore.get(keyOf(first)))?.state).toBe('unknown');

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
      // The status query answers the same unstorable receipt: it disagrees with what a record can hold.
      expect(retry.gate).toBe('status_query');
      expectCode(retry, 'STATUS_CONFLICT');
    }
    expect(host.calls['create_refund_draft']).toBe(1);
    expect((await host.stores.idempotencyStore.get(keyOf(first)))?.state).toBe('unknown');
  });

  it('the same for a status_ref with NUL', async () => {
    const host = writeHost();
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = async (input) => ({ ...(await original(input)), status_ref: '\u0000' }) as Awaited<ReturnType<typeof original>>;
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expectCode(first, 'OUTPUT_CONTRACT_VIOLATION');
    expect(first.violations).toEqual([{ rule: 'downstream_reference', path: '/status_ref' }]);
    expect((await host.stores.idempotencyStore.get(keyOf(first)))?.state).toBe('unknown');
  });

  it('the output contract accepts exactly the references the stores accept (checkIdentifier of @toolseal/audit), property', () => {
    const host = writeHost();
    const tool = host.registry.get('create_refund_draft');
    if (tool === undefined) throw new Error('no tool');
    const storable = (value: string): boolean => {
      try {
        checkIdentifier('receipt', value);
        return true;
      } catch (error) {
        if (StoreInputError.isInstance(error)) return false;
        throw error;
      }
    };
    const reference = fc.oneof(
      fc.string({ maxLength: 130 }),
      fc.string({ unit: 'binary', maxLength: 130 }),
      fc.string({ unit: fc.constantFrom('r', '\u0000', '\u0001', '\ud800', '\udc00', '\ud83d\ude00'), maxLength: 130 }),
    );
    const args = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }] };
    fc.assert(
      fc.property(reference, (receipt) => {
        const output = sealResult({
          registry: host.registry,
          tool_name: 'create_refund_draft',
          principal: CEDAR_DRAFTER,
          call: {
            provider: 'openai',
            api_family: 'responses',
            response_id: 'resp_1',
            call_id: 'call_1',
            adapter_revision: 'openai-responses-v1',
            operation_id: 'op-1',
            idempotency_key: 'intent-key',
          },
          arguments: args,
          subject: {
            kind: 'data',
            output: {
              data: { draft_ref: 'DRAFT-1', order_ref: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A' },
              resource_revision: 'draft-c7-r1',
              observed_at: '2026-07-19T00:00:00Z',
              receipt,
            },
          },
          execution: { delivery: 'fresh' },
          now: () => new Date(Date.UTC(2026, 6, 19)),
          digester: host.digester,
        });
        // Within the tool's string limit (128), the receipt rule is the stores' rule exactly.
        if (receipt.length > 128) return;
        expect(output.violations.length === 0, JSON.stringify(receipt)).toBe(storable(receipt));
      }),
    );
  });
});

describe('a sealed result the idempotency store refuses as input (StoreInputError)', () => {
  it('at complete: the record turns unknown (never stays started), the model gets TOOL_ERROR, never a success; the receipt stays audited', async () => {
    const host = writeHost();
    const store = host.stores.idempotencyStore;
    const complete = store.complete.bind(store);
    store.complete = () => Promise.reject(new StoreInputError('result.sealed_json', 'must have at most 4194304 characters'));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.gate).toBe('idempotency');
    expectCode(result, 'TOOL_ERROR');
    expect(result.sealed.protected_audit.downstream.receipt).toBe(`receipt-${keyOf(result)}`);
    expect(await notesOf(host, result)).toEqual(['complete_input_rejected']);
    expect((await store.get(keyOf(result)))?.state).toBe('unknown');
    expect(host.calls['create_refund_draft']).toBe(1);

    // The retry queries status (the downstream has the receipt) and reconciles: still one write.
    store.complete = complete;
    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retry.gate).toBe('status_query');
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('at reconcile: TOOL_ERROR for a person instead of a success every retry would fail to record again; the record stays unknown', async () => {
    const host = writeHost({ deadlines: { create_refund_draft: 30 } });
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      void original(input);
      return new Promise<never>(() => undefined);
    };
    const lost = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expectCode(lost, 'OUTCOME_UNKNOWN');
    host.stores.idempotencyStore.reconcile = () => Promise.reject(new StoreInputError('result.sealed_json', 'must have at most 4194304 characters'));
    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retry.gate).toBe('status_query');
    expectCode(retry, 'TOOL_ERROR');
    expect(retry.sealed.protected_audit.downstream.receipt).toBe(`receipt-${keyOf(lost)}`);
    expect(await notesOf(host, retry)).toEqual(['reconcile_input_rejected']);
    expect((await host.stores.idempotencyStore.get(keyOf(lost)))?.state).toBe('unknown');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('a store outage at reconcile still answers the reconciled result (unchanged: only an input refusal is permanent)', async () => {
    const host = writeHost({ deadlines: { create_refund_draft: 30 } });
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      void original(input);
      return new Promise<never>(() => undefined);
    };
    await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context);
    host.stores.idempotencyStore.reconcile = () => Promise.reject(new Error('Connection terminated unexpectedly'));
    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(await notesOf(host, retry)).toEqual(['reconcile_failed']);
  });

  it("a handler's final refusal the store will not hold: the key is given back (the handler declared nothing ran), the refusal answered", async () => {
    const host = writeHost();
    host.impl.create_refund_draft = () => ({ kind: 'error', code: 'NOT_FOUND' });
    host.stores.idempotencyStore.complete = () => Promise.reject(new StoreInputError('result.sealed_json', 'refused'));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.gate).toBe('handler');
    expectCode(result, 'NOT_FOUND');
    expect(await notesOf(host, result)).toEqual(['complete_input_rejected']);
    expect((await host.stores.idempotencyStore.get(keyOf(result)))?.state).toBe('released');
  });

  it('a refusal that can be neither stored nor released turns the record unknown rather than leaving it started', async () => {
    const host = writeHost();
    host.impl.create_refund_draft = () => ({ kind: 'error', code: 'NOT_FOUND' });
    host.stores.idempotencyStore.complete = () => Promise.reject(new StoreInputError('result.sealed_json', 'refused'));
    host.stores.idempotencyStore.release = () => Promise.reject(new Error('Connection terminated unexpectedly'));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expectCode(result, 'NOT_FOUND');
    expect((await host.stores.idempotencyStore.get(keyOf(result)))?.state).toBe('unknown');
  });
});
