// The dispatcher on the durable SQLite store: idempotency records outlive the process, so a host
// restarted on the same file replays instead of writing again, and a host that crashed mid-write
// leaves an outcome that the next host reconciles through a status query.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '@toolseal/store-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, START, TEST_KEY, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { Approval } from './approval.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-dispatcher-'));
const path = join(directory, 'stores.sqlite');
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function hostOnFile(): { host: TestHost; stores: ReturnType<typeof openSqliteStores>; close: () => void } {
  const clock = new ManualClock(START);
  const stores = openSqliteStores({ path, digester: createDigester({ key: TEST_KEY }), clock, synchronous: 'normal' });
  const host = createTestHost({ clock, options: { stores } });
  return { host, stores, close: () => stores.close() };
}

function approval(host: TestHost, key: string): Approval {
  const request_sha256 = host.digester.requestDigest({
    tenant_id: CEDAR_DRAFTER.tenant_id,
    subject_id: CEDAR_DRAFTER.subject_id,
    tool_name: 'create_refund_draft',
    arguments: BASELINE_REFUND,
    input_revision: 'refund-proposal-v1',
    output_revision: 'refund-draft-output-v1',
    effect_revision: 'refund-draft-effect-v1',
  });
  return { request_sha256, tool_name: 'create_refund_draft', idempotency_key: key, approved_by: 'supervisor-1', expires_at: host.clock.now() + 60_000 };
}

describe('on the SQLite store', () => {
  it('replays a write after a restart instead of running it again', async () => {
    const first = hostOnFile();
    const context = { principal: CEDAR_DRAFTER, approvals: [approval(first.host, 'restart-key')] };
    const fresh = (await first.host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).results[0];
    expect(fresh?.sealed.model_result.execution.delivery).toBe('fresh');
    first.close();

    const second = hostOnFile();
    const call = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await second.host.dispatcher.dispatch([call], context);
    const replay = turn.results[0];
    expect(replay?.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(replay?.sealed.model_result.data).toEqual(fresh?.sealed.model_result.data);
    expect(second.host.calls['create_refund_draft']).toBe(0);
    expect(turn.verify(replay?.sealed as never, call)).toEqual({ ok: true });
    second.close();
  });

  it('reconciles a write whose host crashed after starting it (lease ran out), without writing again', async () => {
    const { host, close } = hostOnFile();
    // Another host claimed and started the write, the downstream committed it, and the host died.
    const given = approval(host, 'crashed-host-key');
    const stores = openSqliteStores({ path, digester: host.digester, clock: host.clock });
    const claim = await stores.idempotencyStore.claim({
      key: 'crashed-host-key',
      request_sha256: given.request_sha256,
      owner: 'host-that-crashed',
      lease_ms: 1_000,
    });
    if (claim.kind !== 'claimed') throw new Error('claim failed');
    await stores.idempotencyStore.markStarted({ key: 'crashed-host-key', fencing_token: claim.fencing_token, lease_ms: 1_000 });
    stores.close();
    host.drafts.set('crashed-host-key', { draft_ref: 'DRAFT-CRASHED', order_ref: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A' });

    host.clock.advance(5_000);
    const result = (
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_DRAFTER, approvals: [given] })
    ).results[0];
    expect(result?.gate).toBe('status_query');
    expect(result?.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(result?.sealed.model_result.data?.['draft_ref']).toBe('DRAFT-CRASHED');
    expect(host.calls['create_refund_draft']).toBe(0);
    close();
  });

  it('the review: refuses to replay a record whose receipt column a database writer changed (STATUS_CONFLICT), never auditing the forgery', async () => {
    const { host, stores, close } = hostOnFile();
    const context = { principal: CEDAR_DRAFTER, approvals: [approval(host, 'receipt-column-key')] };
    const fresh = (await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).results[0];
    expect(fresh?.sealed.protected_audit.downstream.receipt).toBe('receipt-receipt-column-key');
    stores.database.prepare("UPDATE idempotency_records SET receipt = 'R-FORGED' WHERE key = 'receipt-column-key'").run();
    const replay = (await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).results[0];
    expect(replay?.gate).toBe('idempotency');
    expect(replay?.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    const entries = (await stores.auditLog.query({}, { limit: 100 })).entries;
    expect(JSON.stringify(entries.map((entry) => entry.body))).not.toContain('R-FORGED');
    expect(host.calls['create_refund_draft']).toBe(1);
    close();
  });

  it("releases a started write on the handler's temporary refusal (RATE_LIMIT), so the approved retry runs it", async () => {
    const { host, stores, close } = hostOnFile();
    const given = approval(host, 'rate-limited-key');
    const original = host.impl.create_refund_draft;
    host.impl.create_refund_draft = () => ({ kind: 'error', code: 'RATE_LIMIT', retryAfterMs: 1_000 });
    const context = { principal: CEDAR_DRAFTER, approvals: [given] };
    const refused = (await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).results[0];
    expect(refused?.sealed.model_result.error?.code).toBe('RATE_LIMIT');
    expect((await stores.idempotencyStore.get('rate-limited-key'))?.state).toBe('released');

    host.impl.create_refund_draft = original;
    host.clock.advance(1_000);
    const retried = (await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).results[0];
    expect(retried?.sealed.model_result).toMatchObject({ status: 'succeeded', execution: { delivery: 'fresh' } });
    expect((await stores.idempotencyStore.get('rate-limited-key'))?.state).toBe('completed');
    close();
  });

  it("a restart that switched the tool from approval 'required' to 'none' does not write a completed intent again", async () => {
    const first = hostOnFile();
    const context = { principal: CEDAR_DRAFTER, approvals: [approval(first.host, 'switch-key')] };
    const fresh = (await first.host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).results[0];
    expect(fresh?.sealed.model_result.status).toBe('succeeded');
    first.close();

    const clock = new ManualClock(START);
    const stores = openSqliteStores({ path, digester: createDigester({ key: TEST_KEY }), clock, synchronous: 'normal' });
    const host = createTestHost({
      clock,
      options: { stores },
      tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
    });
    const retried = (await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_DRAFTER })).results[0];
    expect(retried?.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(host.calls['create_refund_draft']).toBe(0);
    stores.close();
  });
});
