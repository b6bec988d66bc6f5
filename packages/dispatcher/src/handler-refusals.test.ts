// A write handler's catalogued refusal (security review, finding F4): temporary ones give the
// idempotency key back so the same intent runs once the condition passes; final ones are kept
// and replayed. Recovery comes from the catalog (spec 000): `retry_after`, `refresh_state` and
// `hold` must not be answered with the same refusal forever.
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { HandlerErrorCode } from './dispatcher-tool.js';

const context = { principal: CEDAR_DRAFTER };

/** A write without approval, whose handler refuses once with `code`, then writes as usual. */
function refusingOnce(code: HandlerErrorCode): TestHost {
  const host = createTestHost({
    tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
  });
  const original = host.impl.create_refund_draft;
  let first = true;
  host.impl.create_refund_draft = (input) => {
    if (first) {
      first = false;
      return code === 'RATE_LIMIT' ? { kind: 'error', code, retryAfterMs: 1_000 } : { kind: 'error', code };
    }
    return original(input);
  };
  return host;
}

async function dispatchRefund(host: TestHost) {
  const turn = await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context);
  const [result] = turn.results;
  if (result === undefined) throw new Error('no result');
  return result;
}

describe('a write handler refusal', () => {
  it('the review: RATE_LIMIT releases the key, and the retry after the wait runs the write', async () => {
    const host = refusingOnce('RATE_LIMIT');
    const refused = await dispatchRefund(host);
    expect(refused.sealed.model_result.error).toMatchObject({ code: 'RATE_LIMIT', recovery: 'retry_after', retry_after_ms: 1_000 });
    const key = refused.sealed.protected_audit.downstream.idempotency_key ?? '';
    expect((await host.stores.idempotencyStore.get(key))?.state).toBe('released');

    host.clock.advance(1_000);
    const retried = await dispatchRefund(host);
    expect(host.calls['create_refund_draft']).toBe(2);
    expect(retried.gate).toBe('sealed');
    expect(retried.sealed.model_result).toMatchObject({ status: 'succeeded', execution: { delivery: 'fresh', outcome: 'committed' } });
    expect((await host.stores.idempotencyStore.get(key))?.state).toBe('completed');

    // From now on the same intent replays the write, never runs it again.
    const replayed = await dispatchRefund(host);
    expect(host.calls['create_refund_draft']).toBe(2);
    expect(replayed.sealed.model_result.execution.delivery).toBe('local_replay');
  });

  it.each(['STATE_CHANGED', 'FACTS_UNAVAILABLE'] as const)('%s releases the key too', async (code) => {
    const host = refusingOnce(code);
    const refused = await dispatchRefund(host);
    expect(refused.sealed.model_result.error?.code).toBe(code);
    expect((await host.stores.idempotencyStore.get(refused.sealed.protected_audit.downstream.idempotency_key ?? ''))?.state).toBe('released');
    const retried = await dispatchRefund(host);
    expect(retried.sealed.model_result.status).toBe('succeeded');
    expect(host.calls['create_refund_draft']).toBe(2);
  });

  it.each(['NOT_FOUND', 'RULE_REJECTED'] as const)('%s is final for the key: completed, and replayed without running again', async (code) => {
    const host = refusingOnce(code);
    const refused = await dispatchRefund(host);
    expect(refused.sealed.model_result.error?.code).toBe(code);
    expect((await host.stores.idempotencyStore.get(refused.sealed.protected_audit.downstream.idempotency_key ?? ''))?.state).toBe('completed');
    const again = await dispatchRefund(host);
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(again.sealed.model_result).toMatchObject({ error: { code }, execution: { delivery: 'local_replay' } });
  });

  it('when the store refuses the release, the refusal is completed as before (never left started)', async () => {
    const host = refusingOnce('RATE_LIMIT');
    host.stores.idempotencyStore.release = () => Promise.reject(new Error('store down'));
    const refused = await dispatchRefund(host);
    expect(refused.sealed.model_result.error?.code).toBe('RATE_LIMIT');
    const key = refused.sealed.protected_audit.downstream.idempotency_key ?? '';
    expect((await host.stores.idempotencyStore.get(key))?.state).toBe('completed');
  });
});
