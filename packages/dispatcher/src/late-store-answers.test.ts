// Store calls that answer, but late (README, "Deadlines" and "Idempotency"): a markStarted that
// answers after the call's deadline or the host's abort must not let the write start late, and a
// completion that lands after another claim turned the record `unknown` is reconciled with the
// receipt this dispatcher holds, so retries replay it instead of answering OUTCOME_UNKNOWN forever.
import type { JsonObject } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { DispatchedCall } from './dispatch-types.js';

const context = { principal: CEDAR_DRAFTER };
const DEADLINE_MS = 1_000;
const write = (): ReturnType<typeof toolCall> => toolCall('create_refund_draft', BASELINE_REFUND);
const keyOf = (result: DispatchedCall): string => result.sealed.protected_audit.downstream.idempotency_key ?? '';

/** The test host with its refund write needing no approval; `withStatusQuery: false` drops queryStatus. */
function writeHost(withStatusQuery = true): TestHost {
  return createTestHost({
    deadlines: { create_refund_draft: DEADLINE_MS },
    tools: (tools) =>
      tools.map((tool) => {
        if (tool.name !== 'create_refund_draft') return tool;
        const plain = { ...tool, approval: 'none' as const };
        if (!withStatusQuery) delete plain.queryStatus;
        return plain;
      }),
  });
}

async function notesOf(host: TestHost, result: DispatchedCall): Promise<unknown> {
  const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
  return (entry?.body as JsonObject | undefined)?.['notes'];
}

describe('markStarted answering after the deadline', () => {
  for (const flavour of ['synchronous', 'asynchronous'] as const) {
    it(`the review: a ${flavour} handler is never called; the key is released and the retry writes once`, async () => {
      const host = writeHost();
      const store = host.stores.idempotencyStore;
      const markStarted = store.markStarted.bind(store);
      // Applied at once, answered 2 s later: well inside storeTimeoutMs (10 s), past the 1 s deadline.
      store.markStarted = async (input) => {
        const answer = await markStarted(input);
        host.clock.advance(2 * DEADLINE_MS);
        return answer;
      };
      const handler = host.impl.create_refund_draft;
      host.impl.create_refund_draft = (input) => (flavour === 'synchronous' ? handler(input) : Promise.resolve(handler(input)));

      const result = only(await host.dispatcher.dispatch([write()], context));
      expect(result.gate).toBe('deadline');
      expect(result.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
      expect(result.sealed.model_result.execution.outcome).toBe('not_started');
      expect(host.calls['create_refund_draft']).toBe(0);
      expect(await notesOf(host, result)).toEqual(['deadline_during_mark_started']);
      expect((await store.get(keyOf(result)))?.state).toBe('released');

      store.markStarted = markStarted;
      const retried = only(await host.dispatcher.dispatch([write()], context));
      expect(retried.gate).toBe('sealed');
      expect(host.calls['create_refund_draft']).toBe(1);
    });
  }

  it('a markStarted answering after the host aborted the turn does not start the handler either', async () => {
    const host = writeHost();
    const store = host.stores.idempotencyStore;
    const markStarted = store.markStarted.bind(store);
    const controller = new AbortController();
    // The abort lands after the dispatcher received the store's answer (when it reads `ok`), so the
    // wait itself ended normally: only the check before the handler can stop the write.
    store.markStarted = async (input) => {
      const answer = await markStarted(input);
      return Object.defineProperty({ ...answer }, 'ok', {
        enumerable: true,
        get: () => {
          controller.abort();
          return answer.ok;
        },
      });
    };
    const result = only(await host.dispatcher.dispatch([write()], { ...context, signal: controller.signal }));
    expect(result.gate).toBe('deadline');
    expect(result.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(await notesOf(host, result)).toEqual(['aborted_during_mark_started']);
    expect(host.calls['create_refund_draft']).toBe(0);
    expect((await store.get(keyOf(result)))?.state).toBe('released');
  });

  it('when the late key cannot be given back (another claim turned it unknown), the model never hears "retry"', async () => {
    const host = writeHost();
    const store = host.stores.idempotencyStore;
    const markStarted = store.markStarted.bind(store);
    store.markStarted = async (input) => {
      const answer = await markStarted(input);
      host.clock.advance(60_000);
      // Past the started lease: another host's claim turns the record unknown before the release.
      const record = await store.get(input.key);
      await store.claim({ key: input.key, request_sha256: record?.request_sha256 ?? '', owner: 'host-2', lease_ms: 30_000 });
      return answer;
    };
    const result = only(await host.dispatcher.dispatch([write()], context));
    // As for a markStarted whose answer was lost: a key that could not be freed is TOOL_ERROR.
    expect(result.sealed.model_result.error?.code).toBe('TOOL_ERROR');
    expect(host.calls['create_refund_draft']).toBe(0);
    expect(await notesOf(host, result)).toEqual(['deadline_during_mark_started', 'release_wrong_state']);
    expect((await store.get(keyOf(result)))?.state).toBe('unknown');
  });
});

describe('a completion landing after another claim turned the record unknown', () => {
  /** Makes `complete` answer after the started lease ran out and another host's claim found the record. */
  function slowComplete(host: TestHost): () => void {
    const store = host.stores.idempotencyStore;
    const complete = store.complete.bind(store);
    store.complete = async (input) => {
      host.clock.advance(40_000);
      const record = await store.get(input.key);
      const other = await store.claim({ key: input.key, request_sha256: record?.request_sha256 ?? '', owner: 'host-2', lease_ms: 30_000 });
      expect(other.kind).toBe('outcome_unknown');
      return complete(input);
    };
    return () => {
      store.complete = complete;
    };
  }

  it('the review: is reconciled with the receipt in hand, so a retry replays it without a status query', async () => {
    const host = writeHost(false);
    const restore = slowComplete(host);
    const first = only(await host.dispatcher.dispatch([write()], context));
    expect(first.gate).toBe('sealed');
    expect(first.sealed.model_result.status).toBe('succeeded');
    const receipt = first.sealed.protected_audit.downstream.receipt;
    expect(receipt).not.toBeNull();
    expect(await notesOf(host, first)).toEqual(['complete_wrong_state', 'reconciled_after_lease']);
    const record = await host.stores.idempotencyStore.get(keyOf(first));
    expect(record).toMatchObject({ state: 'completed', result: { delivery: 'receipt_reconciled', receipt } });

    restore();
    const retried = only(await host.dispatcher.dispatch([write()], context));
    expect(retried.gate).toBe('idempotency');
    expect(retried.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(retried.sealed.model_result.status).toBe('succeeded');
    expect(retried.sealed.protected_audit.downstream.receipt).toBe(receipt);
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('without a receipt there is nothing to reconcile: the record stays unknown', async () => {
    const host = writeHost(false);
    const handler = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      const answer = handler(input);
      if (answer instanceof Promise || answer.kind !== 'data') throw new Error('test host: expected a synchronous data outcome');
      return { ...answer, receipt: null };
    };
    slowComplete(host);
    const first = only(await host.dispatcher.dispatch([write()], context));
    expect(first.sealed.protected_audit.downstream.receipt).toBeNull();
    expect(await notesOf(host, first)).toEqual(['complete_wrong_state']);
    expect((await host.stores.idempotencyStore.get(keyOf(first)))?.state).toBe('unknown');
  });

  it('a reconcile the store cannot answer leaves the record unknown and the sealed result answered', async () => {
    const host = writeHost(false);
    slowComplete(host);
    host.stores.idempotencyStore.reconcile = () => Promise.reject(new Error('store down'));
    const first = only(await host.dispatcher.dispatch([write()], context));
    expect(first.gate).toBe('sealed');
    expect(await notesOf(host, first)).toEqual(['complete_wrong_state', 'reconcile_failed']);
    expect((await host.stores.idempotencyStore.get(keyOf(first)))?.state).toBe('unknown');
  });
});

describe('a status query whose record another host completed meanwhile', () => {
  /**
   * A write whose handler commits and then throws (the record turns `unknown`), and a status query
   * that lets another host reconcile the record with `otherReceipt` before it answers `committed`
   * with the receipt the downstream holds (`receipt-<key>`).
   */
  async function reconciledElsewhere(otherReceipt: (key: string) => string): Promise<{ host: TestHost; retried: DispatchedCall; key: string }> {
    const host = writeHost();
    const handler = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      handler(input);
      throw new Error('connection reset after the commit');
    };
    const first = only(await host.dispatcher.dispatch([write()], context));
    const key = keyOf(first);
    expect((await host.stores.idempotencyStore.get(key))?.state).toBe('unknown');

    const query = host.impl.create_refund_draft_status;
    host.impl.create_refund_draft_status = async (input) => {
      const other = await host.stores.idempotencyStore.reconcile({
        key,
        request_sha256: input.request_sha256,
        result: { sealed_json: '{"host":"host-2"}', receipt: otherReceipt(key) },
      });
      expect(other.ok).toBe(true);
      return query(input);
    };
    const retried = only(await host.dispatcher.dispatch([write()], context));
    expect(host.calls['create_refund_draft']).toBe(1);
    return { host, retried, key };
  }

  it('answers the result when the record holds the receipt this query found', async () => {
    const { host, retried } = await reconciledElsewhere((key) => `receipt-${key}`);
    expect(retried.gate).toBe('status_query');
    expect(retried.sealed.model_result.status).toBe('succeeded');
    expect(retried.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(await notesOf(host, retried)).toEqual(['reconciled_elsewhere']);
  });

  it('the review: answers STATUS_CONFLICT when the record holds another receipt (two accounts of one write)', async () => {
    const { host, retried, key } = await reconciledElsewhere(() => 'receipt-from-host-2');
    expect(retried.gate).toBe('status_query');
    expect(retried.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(retried.sealed.model_result.execution.outcome).toBe('unknown');
    expect(await notesOf(host, retried)).toEqual(['reconciled_elsewhere_other_receipt']);
    expect((await host.stores.idempotencyStore.get(key))?.result?.receipt).toBe('receipt-from-host-2');
  });

  it('answers OUTCOME_UNKNOWN when the record cannot be read back', async () => {
    const host = writeHost();
    const store = host.stores.idempotencyStore;
    const handler = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      handler(input);
      throw new Error('connection reset after the commit');
    };
    const key = keyOf(only(await host.dispatcher.dispatch([write()], context)));
    const query = host.impl.create_refund_draft_status;
    host.impl.create_refund_draft_status = async (input) => {
      await store.reconcile({ key, request_sha256: input.request_sha256, result: { sealed_json: '{}', receipt: `receipt-${key}` } });
      store.get = () => Promise.reject(new Error('store down'));
      return query(input);
    };
    const retried = only(await host.dispatcher.dispatch([write()], context));
    expect(retried.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
    expect(await notesOf(host, retried)).toEqual(['reconciled_elsewhere_unread']);
  });
});
