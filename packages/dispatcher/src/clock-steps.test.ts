// A clock set back while the dispatcher runs (README, "Deadlines" and "Clock"): the dispatcher's
// clock never goes below an earlier reading, and a call never gets more time than its own budget
// (deadline - turn start), so a step back can neither stretch a deadline or a lease, nor give an
// approval or a token bucket the same time twice.
import type { MarkStartedInput } from '@toolseal/audit';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, toolCall } from './__fixtures__/test-host.js';
import type { Approval } from './approval.js';

const context = { principal: CEDAR_DRAFTER };

describe('a clock set back during a call', () => {
  it('the review: does not stretch a 100 ms deadline by the 5 s the clock went back', async () => {
    const host = createTestHost({ deadlines: { get_order: 100 } });
    host.impl.get_order_check = () => {
      host.clock.set(host.clock.now() - 5_000);
      return { ok: true };
    };
    host.impl.get_order = () => new Promise<never>(() => undefined);
    const began = performance.now();
    const result = only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context));
    const waited = performance.now() - began;
    expect(result.gate).toBe('handler');
    expect(result.sealed.model_result.error?.code).toBe('TOOL_ERROR');
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(1_500);
  });

  it("leases a started write for at most its own budget plus the margin", async () => {
    const host = createTestHost({
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    const store = host.stores.idempotencyStore;
    const claim = store.claim.bind(store);
    const markStarted = store.markStarted.bind(store);
    const leases: number[] = [];
    store.claim = async (input) => {
      const claimed = await claim(input);
      host.clock.set(host.clock.now() - 5_000);
      return claimed;
    };
    store.markStarted = (input: MarkStartedInput) => {
      leases.push(input.lease_ms);
      return markStarted(input);
    };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(result.gate).toBe('sealed');
    // The default 30 000 ms deadline plus the default 5 000 ms margin, not 5 000 ms more.
    expect(leases).toEqual([35_000]);
  });
});

describe('a clock set back between turns', () => {
  it('does not make an expired approval valid again', async () => {
    const host = createTestHost();
    const preview = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    const request = preview.approval_request;
    if (request === null) throw new Error('no approval preview');
    const approval: Approval = {
      request_sha256: request.request_sha256,
      tool_name: request.tool_name,
      idempotency_key: 'expiring-key',
      approved_by: 'supervisor-1',
      expires_at: host.clock.now() + 60_000,
    };
    host.clock.advance(61_000);
    const expired = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(expired.sealed.model_result.error?.code).toBe('APPROVAL_INVALID');
    host.clock.set(host.clock.now() - 30_000);
    const again = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(again.sealed.model_result.error?.code).toBe('APPROVAL_INVALID');
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('the review: a rate limit of one call an hour stays one call an hour while the clock swings back and forth', async () => {
    const host = createTestHost({
      tools: (tools) => tools.map((tool) => (tool.name === 'get_order' ? { ...tool, rateLimit: { capacity: 1, refillPerSecond: 1 / 3600 } } : tool)),
    });
    const gates: string[] = [];
    for (let round = 0; round < 6; round += 1) {
      gates.push(only(await host.dispatcher.dispatch([toolCall('get_order', { order_id: 'ORDER-C7' })], context)).gate);
      host.clock.set(host.clock.now() + (round % 2 === 0 ? -3_600_000 : 3_600_000));
    }
    expect(gates).toEqual(['sealed', 'rate_limit', 'rate_limit', 'rate_limit', 'rate_limit', 'rate_limit']);
    expect(host.calls['get_order']).toBe(1);
  });
});
