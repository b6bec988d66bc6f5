// Store calls that never answer (README, "Store calls that do not answer"): every store call the
// dispatcher awaits is bounded by `storeTimeoutMs`, and one that has not settled by then is treated
// exactly like one that threw. The pre-execution calls (claim, markStarted) also end when the call
// is aborted. No hung store call can hold a call, or the turn around it, forever.
import type { IdempotencyStore } from '@toolseal/audit';
import type { JsonObject } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { DispatchedCall } from './dispatch-types.js';

const context = { principal: CEDAR_DRAFTER };
const STORE_TIMEOUT_MS = 40;
/** 1.25x the store timeout, plus slack for a busy test machine. */
const LATEST_ANSWER_MS = STORE_TIMEOUT_MS * 1.25 + 400;

const never = (): Promise<never> => new Promise<never>(() => undefined);

/** The test host with a short store timeout and its refund write needing no approval. */
function writeHost(storeTimeoutMs = STORE_TIMEOUT_MS): TestHost {
  return createTestHost({
    options: { storeTimeoutMs },
    tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
  });
}

function hang(host: TestHost, method: keyof Pick<IdempotencyStore, 'claim' | 'markStarted' | 'complete' | 'release' | 'markUnknown' | 'reconcile'>): void {
  (host.stores.idempotencyStore as unknown as Record<string, unknown>)[method] = never;
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const began = performance.now();
  const value = await run();
  return { value, ms: performance.now() - began };
}

async function auditBodyOf(host: TestHost, result: DispatchedCall): Promise<JsonObject> {
  const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
  if (entry === undefined) throw new Error(`no audit entry for ${result.call_id}`);
  return entry.body;
}

const keyOf = (result: DispatchedCall): string => result.sealed.protected_audit.downstream.idempotency_key ?? '';
const write = (): ReturnType<typeof toolCall> => toolCall('create_refund_draft', BASELINE_REFUND);

describe('an idempotency store call that never answers, before the handler', () => {
  it('the review: claim: TIMEOUT_BEFORE_EXECUTE after storeTimeoutMs, retry after the claim lease, nothing run', async () => {
    const host = writeHost();
    hang(host, 'claim');
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch([write()], context));
    const result = only(turn);
    expect(ms).toBeGreaterThanOrEqual(STORE_TIMEOUT_MS - 1);
    expect(ms).toBeLessThan(LATEST_ANSWER_MS);
    expect(result.gate).toBe('idempotency');
    // The claim may still apply: the key is free for certain only after its lease (default 30 000).
    expect(result.sealed.model_result.error).toMatchObject({ code: 'TIMEOUT_BEFORE_EXECUTE', retry_after_ms: 30_000 });
    expect((await auditBodyOf(host, result))['notes']).toEqual(['idempotency_store_unavailable']);
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('markStarted: the key is released (confirmed), TIMEOUT_BEFORE_EXECUTE, and the retry runs the write once', async () => {
    const host = writeHost();
    const store = host.stores.idempotencyStore;
    const markStarted = store.markStarted.bind(store);
    hang(host, 'markStarted');
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch([write()], context));
    const result = only(turn);
    expect(ms).toBeLessThan(LATEST_ANSWER_MS);
    expect(result.sealed.model_result.error).toMatchObject({ code: 'TIMEOUT_BEFORE_EXECUTE', retry_after_ms: 1_000 });
    expect((await store.get(keyOf(result)))?.state).toBe('released');
    expect(host.calls['create_refund_draft']).toBe(0);

    store.markStarted = markStarted;
    const retried = only(await host.dispatcher.dispatch([write()], context));
    expect(retried.gate).toBe('sealed');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('ends a hung claim or markStarted as soon as the host aborts the turn, long before storeTimeoutMs', async () => {
    for (const method of ['claim', 'markStarted'] as const) {
      const host = writeHost(60_000);
      hang(host, method);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 20);
      const { value: turn, ms } = await timed(() => host.dispatcher.dispatch([write()], { ...context, signal: controller.signal }));
      const result = only(turn);
      expect(ms, method).toBeLessThan(2_000);
      expect(result.sealed.model_result.error?.code, method).toBe('TIMEOUT_BEFORE_EXECUTE');
      // The host's abort, not a store outage (the review): audited at the deadline gate.
      expect(result.gate, method).toBe('deadline');
      expect((await host.stores.auditLog.query({}, { limit: 10 })).entries.at(-1)?.body['notes'], method).toEqual(['aborted_during_store_call']);
      expect(host.calls['create_refund_draft']).toBe(0);
      if (method === 'markStarted') expect((await host.stores.idempotencyStore.get(keyOf(result)))?.state).toBe('released');
    }
  });

  it('does not claim at all for a turn the host aborted before the write got there', async () => {
    // Without a proposal gate (whose validator would already hold an aborted call).
    const host = createTestHost({
      tools: (tools) =>
        tools.map((tool) => {
          if (tool.name !== 'create_refund_draft') return tool;
          const plain = { ...tool, approval: 'none' as const };
          delete plain.proposal;
          return plain;
        }),
    });
    const controller = new AbortController();
    controller.abort();
    let claims = 0;
    const store = host.stores.idempotencyStore;
    const claim = store.claim.bind(store);
    store.claim = (input) => {
      claims += 1;
      return claim(input);
    };
    const result = only(await host.dispatcher.dispatch([write()], { ...context, signal: controller.signal }));
    expect(result.gate).toBe('deadline');
    expect(result.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(claims).toBe(0);
  });
});

describe('an idempotency store call that never answers, after the handler', () => {
  it('complete: the sealed result is still answered and audited, noted complete_failed', async () => {
    const host = writeHost();
    hang(host, 'complete');
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch([write()], context));
    const result = only(turn);
    expect(ms).toBeLessThan(LATEST_ANSWER_MS);
    expect(result.gate).toBe('sealed');
    expect(result.sealed.model_result.status).toBe('succeeded');
    expect(result.audit_entry?.body).toBe('full');
    expect((await auditBodyOf(host, result))['notes']).toEqual(['complete_failed']);
    // The record stays started: once its lease runs out, the next claim finds the outcome unknown.
    expect((await host.stores.idempotencyStore.get(keyOf(result)))?.state).toBe('started');
  });

  it('markUnknown (the handler threw): TOOL_ERROR is still answered', async () => {
    const host = writeHost();
    hang(host, 'markUnknown');
    host.impl.create_refund_draft = () => {
      throw new Error('downstream broke');
    };
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch([write()], context));
    expect(ms).toBeLessThan(LATEST_ANSWER_MS);
    expect(only(turn).sealed.model_result.error?.code).toBe('TOOL_ERROR');
  });

  it('release after a temporary refusal: the refusal is completed instead, noted release_failed', async () => {
    const host = writeHost();
    hang(host, 'release');
    host.impl.create_refund_draft = () => ({ kind: 'error', code: 'STATE_CHANGED' });
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch([write()], context));
    const result = only(turn);
    expect(ms).toBeLessThan(LATEST_ANSWER_MS);
    expect(result.sealed.model_result.error?.code).toBe('STATE_CHANGED');
    expect((await auditBodyOf(host, result))['notes']).toEqual(['release_failed']);
    expect((await host.stores.idempotencyStore.get(keyOf(result)))?.state).toBe('completed');
  });

  it('reconcile: the receipt the status query found is still answered, noted reconcile_failed', async () => {
    const host = createTestHost({
      options: { storeTimeoutMs: STORE_TIMEOUT_MS },
      deadlines: { create_refund_draft: 30 },
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    const original = host.impl.create_refund_draft;
    // The downstream commits, then the handler never answers: the record turns unknown.
    host.impl.create_refund_draft = (input) => {
      void original(input);
      return never();
    };
    const crashed = only(await host.dispatcher.dispatch([write()], context));
    expect(crashed.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
    hang(host, 'reconcile');
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch([write()], context));
    const result = only(turn);
    expect(ms).toBeLessThan(LATEST_ANSWER_MS);
    expect(result.gate).toBe('status_query');
    expect(result.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect((await auditBodyOf(host, result))['notes']).toEqual(['reconcile_failed']);
  });
});

describe('an audit append that never answers', () => {
  it('the review: a read that ran is appended once more with the minimal body, and its result answered', async () => {
    const host = writeHost();
    const log = host.stores.auditLog;
    const append = log.append.bind(log);
    let appends = 0;
    log.append = (entry) => (++appends === 1 ? never() : append(entry));
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
    const result = only(turn);
    expect(ms).toBeLessThan(LATEST_ANSWER_MS);
    expect(result.gate).toBe('sealed');
    expect(result.sealed.model_result.status).toBe('succeeded');
    expect(result.audit_entry?.body).toBe('minimal');
  });

  it('withholds the result (TOOL_ERROR, gate audit) when neither append answers; UNKNOWN_TOOL stays UNKNOWN_TOOL', async () => {
    const host = writeHost();
    host.stores.auditLog.append = never;
    const calls = [toolCall('get_order', { order_id: 'ORDER-C7' }), toolCall('send_email', {})];
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch(calls, context));
    expect(ms).toBeLessThan(2 * LATEST_ANSWER_MS);
    const [read, unknown] = turn.results as [DispatchedCall, DispatchedCall];
    expect(read.gate).toBe('audit');
    expect(read.audit_entry).toBeNull();
    expect(read.sealed.model_result.error?.code).toBe('TOOL_ERROR');
    expect(unknown.gate).toBe('audit');
    expect(unknown.sealed.model_result.error?.code).toBe('UNKNOWN_TOOL');
    for (const [index, call] of calls.entries()) expect(turn.verify(turn.sealed[index] as never, call)).toEqual({ ok: true });
  });
});

describe('a turn with one hung store call', () => {
  it("answers every call: the hung one as if its store call threw, the others with their own results", async () => {
    const host = writeHost();
    hang(host, 'claim');
    const calls = [write(), toolCall('get_order', { order_id: 'ORDER-C7' })];
    const { value: turn, ms } = await timed(() => host.dispatcher.dispatch(calls, context));
    expect(ms).toBeLessThan(LATEST_ANSWER_MS);
    expect(turn.results.map((result) => result.sealed.model_result.error?.code ?? result.sealed.model_result.status)).toEqual([
      'TIMEOUT_BEFORE_EXECUTE',
      'succeeded',
    ]);
  });
});
