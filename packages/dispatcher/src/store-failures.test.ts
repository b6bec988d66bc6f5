// The turn deadline and the idempotency store's failures, as the model hears them. The catalog
// (spec 000): TIMEOUT_BEFORE_EXECUTE means "Nothing was executed" and invites a retry, so it may
// only be said when the handler did not run AND the key is free for that retry; OUTCOME_UNKNOWN
// means it may have run. A store outage is not a dispatcher bug, and neither is reported as the other.
// An audit log that refuses a call's entry withholds the result: the TOOL_ERROR in its place is the
// dispatcher's own new answer (delivery `fresh`), whatever the withheld result's delivery was.
import { StoreInputError, type MarkStartedInput } from '@toolseal/audit';
import type { JsonObject } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, START, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { DispatchedCall } from './dispatch-types.js';

const context = { principal: CEDAR_DRAFTER };

/** The test host with its refund write needing no approval (the key is the intent). */
function writeHost(): TestHost {
  return createTestHost({
    tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
  });
}

async function auditBodyOf(host: TestHost, result: DispatchedCall): Promise<JsonObject> {
  const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
  if (entry === undefined) throw new Error(`no audit entry for ${result.call_id}`);
  return entry.body;
}

const keyOf = (result: DispatchedCall): string => result.sealed.protected_audit.downstream.idempotency_key ?? '';

describe('the turn deadline', () => {
  it('the review: a fractional deadline is rounded down to a whole millisecond, and the write runs', async () => {
    const host = writeHost();
    const leases: number[] = [];
    const store = host.stores.idempotencyStore;
    const markStarted = store.markStarted.bind(store);
    store.markStarted = (input: MarkStartedInput) => {
      leases.push(input.lease_ms);
      return markStarted(input);
    };
    let handlerDeadline = 0;
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      handlerDeadline = input.deadline;
      return original(input);
    };
    // performance.timeOrigin + performance.now() style: a legitimate epoch-ms deadline with a fraction.
    const deadline = START + 10_000.5;
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, deadline }));
    expect(result.gate).toBe('sealed');
    expect(result.sealed.model_result.status).toBe('succeeded');
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(handlerDeadline).toBe(START + 10_000);
    // The remaining 10 000 ms plus the default 5 000 ms margin, in whole milliseconds.
    expect(leases).toEqual([15_000]);
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['-1', -1],
    ['given as text', String(START + 10_000)],
    ['null', null],
  ])('refuses the deadline %s as host misuse (TypeError), before anything runs or is audited', async (_name, deadline) => {
    const host = writeHost();
    const calls = [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('create_refund_draft', BASELINE_REFUND)];
    await expect(host.dispatcher.dispatch(calls, { ...context, deadline: deadline as number })).rejects.toThrow(
      /context\.deadline must be finite, non-negative epoch milliseconds/,
    );
    expect(host.calls).toEqual({ get_order: 0, kb_search: 0, create_refund_draft: 0 });
    expect(await host.stores.auditLog.head()).toBeNull();
  });
});

describe('an idempotency store that refuses an input of the dispatcher (StoreInputError)', () => {
  it('is a bug, not an outage: TOOL_ERROR, audited as idempotency_store_input_rejected, nothing run', async () => {
    for (const method of ['claim', 'markStarted'] as const) {
      const host = writeHost();
      const refuseInput = (): Promise<never> => Promise.reject(new StoreInputError('lease_ms', 'must be a positive safe integer'));
      if (method === 'claim') host.stores.idempotencyStore.claim = refuseInput;
      else host.stores.idempotencyStore.markStarted = refuseInput;
      const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
      expect(result.gate, method).toBe('idempotency');
      expect(result.sealed.model_result.error).toMatchObject({ code: 'TOOL_ERROR', recovery: 'human_review' });
      const body = await auditBodyOf(host, result);
      expect(body['notes'], method).toContain('idempotency_store_input_rejected');
      expect(body['notes'], method).not.toContain('idempotency_store_unavailable');
      expect(host.calls['create_refund_draft']).toBe(0);
      if (method === 'markStarted') expect((await host.stores.idempotencyStore.get(keyOf(result)))?.state).toBe('released');
    }
  });
});

describe('a claim whose answer is lost (applied by the store, the connection dropped after commit)', () => {
  it('the review: TIMEOUT_BEFORE_EXECUTE with retry_after_ms = leaseMs, the time after which the key is free for certain', async () => {
    const host = createTestHost({
      options: { leaseMs: 20_000 },
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    const store = host.stores.idempotencyStore;
    const claim = store.claim.bind(store);
    let first = true;
    store.claim = async (input) => {
      const applied = await claim(input);
      if (!first) return applied;
      first = false;
      throw new Error('Connection terminated unexpectedly');
    };
    const lost = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(lost.gate).toBe('idempotency');
    expect(lost.sealed.model_result.error).toMatchObject({ code: 'TIMEOUT_BEFORE_EXECUTE', retry_after_ms: 20_000 });
    expect((await auditBodyOf(host, lost))['notes']).toEqual(['idempotency_store_unavailable']);

    // Why not 1 000 ms: the claim applied and holds the key for its whole lease.
    host.clock.advance(1_000);
    const early = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(early.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
    host.clock.advance(19_000);
    const retried = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retried.gate).toBe('sealed');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('caps retry_after_ms at the catalog bound of TIMEOUT_BEFORE_EXECUTE (600 000) for a longer lease', async () => {
    const host = createTestHost({
      options: { leaseMs: 3_600_000 },
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    host.stores.idempotencyStore.claim = () => Promise.reject(new Error('connection refused'));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.sealed.model_result.error).toMatchObject({ code: 'TIMEOUT_BEFORE_EXECUTE', retry_after_ms: 600_000 });
  });
});

describe('markStarted whose answer is lost (applied by the store, the connection dropped after commit)', () => {
  function lostAcknowledgement(host: TestHost, after: (input: MarkStartedInput) => Promise<void> = async () => undefined): void {
    const store = host.stores.idempotencyStore;
    const markStarted = store.markStarted.bind(store);
    let first = true;
    store.markStarted = async (input) => {
      const applied = await markStarted(input);
      if (!first) return applied;
      first = false;
      await after(input);
      throw new Error('Connection terminated unexpectedly');
    };
  }

  it('the review: frees the key (the handler never ran), says TIMEOUT_BEFORE_EXECUTE, and the retry runs the write once', async () => {
    const host = writeHost();
    lostAcknowledgement(host);
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(first.gate).toBe('idempotency');
    expect(first.sealed.model_result.error).toMatchObject({ code: 'TIMEOUT_BEFORE_EXECUTE', recovery: 'retry_after', retry_after_ms: 1_000 });
    expect((await host.stores.idempotencyStore.get(keyOf(first)))?.state).toBe('released');
    expect((await auditBodyOf(host, first))['notes']).toContain('idempotency_store_unavailable');
    expect(host.calls['create_refund_draft']).toBe(0);

    const retried = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retried.gate).toBe('sealed');
    expect(retried.sealed.model_result.execution).toMatchObject({ outcome: 'committed', delivery: 'fresh' });
    expect(host.calls['create_refund_draft']).toBe(1);
    expect((await host.stores.idempotencyStore.get(keyOf(first)))?.state).toBe('completed');
  });

  it('never says "nothing was executed, retry" when the key could not be freed: TOOL_ERROR (a person frees it)', async () => {
    const host = writeHost();
    lostAcknowledgement(host);
    host.stores.idempotencyStore.release = () => Promise.reject(new Error('Connection terminated unexpectedly'));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.sealed.model_result.error).toMatchObject({ code: 'TOOL_ERROR', recovery: 'human_review' });
    expect((await auditBodyOf(host, result))['notes']).toEqual(expect.arrayContaining(['release_failed', 'idempotency_store_unavailable']));
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('answers OUTCOME_UNKNOWN when another claim took the key over meanwhile (it may run the write)', async () => {
    const host = writeHost();
    const store = host.stores.idempotencyStore;
    lostAcknowledgement(host, async ({ key, fencing_token }) => {
      // Another host: the record was freed and claimed again, with the next fencing token.
      await store.release({ key, fencing_token, handler_declared_not_started: true });
      const record = await store.get(key);
      await store.claim({ key, request_sha256: record?.request_sha256 ?? '', owner: 'other-host', lease_ms: 30_000 });
    });
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
    expect((await auditBodyOf(host, result))['notes']).toContain('release_fenced');
    expect((await store.get(keyOf(result)))?.owner).toBe('other-host');
  });
});

describe('an audit log that refuses the entry of a replay or a reconciliation: the withheld TOOL_ERROR is a fresh answer', () => {
  /** Every `sealed_call` append fails while `down` says so (full and minimal bodies alike). */
  function auditLogDown(host: TestHost): { down: boolean } {
    const log = { down: false };
    const append = host.stores.auditLog.append.bind(host.stores.auditLog);
    host.stores.auditLog.append = (input) => (log.down && input.kind === 'sealed_call' ? Promise.reject(new Error('log down')) : append(input));
    return log;
  }

  /** The call's fate was withheld: TOOL_ERROR as the catalog states it, sealed as the dispatcher's own new answer. */
  function expectWithheldFresh(result: DispatchedCall): void {
    expect(result.gate).toBe('audit');
    expect(result.audit_entry).toBeNull();
    expect(result.sealed.model_result).toMatchObject({
      status: 'failed',
      data: null,
      error: { code: 'TOOL_ERROR', recovery: 'human_review' },
      // Spec 000: delivery is "how this delivery was obtained". No status query reconciled this
      // TOOL_ERROR and no idempotency record held it.
      execution: { outcome: 'unknown', delivery: 'fresh' },
    });
  }

  it('the review (review 6, F1): a reconciled write whose entry the log refuses answers TOOL_ERROR with delivery fresh, never receipt_reconciled', async () => {
    const host = createTestHost({
      deadlines: { create_refund_draft: 30 },
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    // The write commits downstream, then its handler never answers: OUTCOME_UNKNOWN.
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = (input) => {
      void original(input);
      return new Promise<never>(() => undefined);
    };
    const lost = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(lost.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');

    // The retry's status query finds the receipt, but the log takes neither entry of the call.
    const log = auditLogDown(host);
    log.down = true;
    const call = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([call], context);
    const withheld = only(turn);
    expectWithheldFresh(withheld);
    // The package the model gets is the one its turn verifies (the adapter's check).
    expect(turn.verify(withheld.sealed, call)).toEqual({ ok: true });
    expect((await host.stores.idempotencyStore.get(keyOf(lost)))?.state).toBe('completed');
    expect(host.calls['create_refund_draft']).toBe(1);

    // The log is back: the reconciled result replays from the record the reconciliation completed.
    log.down = false;
    const replayed = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(replayed.gate).toBe('idempotency');
    expect(replayed.sealed.model_result).toMatchObject({ status: 'succeeded', execution: { outcome: 'committed', delivery: 'local_replay' } });
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('a replay whose entry the log refuses answers TOOL_ERROR with delivery fresh, not local_replay', async () => {
    const host = writeHost();
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(first.sealed.model_result.execution).toMatchObject({ outcome: 'committed', delivery: 'fresh' });

    const log = auditLogDown(host);
    log.down = true;
    const call = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([call], context);
    const withheld = only(turn);
    expectWithheldFresh(withheld);
    expect(turn.verify(withheld.sealed, call)).toEqual({ ok: true });
    expect(host.calls['create_refund_draft']).toBe(1);

    log.down = false;
    const replayed = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(replayed.sealed.model_result).toMatchObject({ status: 'succeeded', execution: { delivery: 'local_replay' } });
  });
});
