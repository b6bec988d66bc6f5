// Approvals and earlier attempts of the same request (spec 000): OUTCOME_UNKNOWN recovers by
// `query_status`, never by a second write; `local_replay` and `receipt_reconciled` never skip the
// current authorization. An approval is a person's consent to one new write: a replay or a status
// query writes nothing new, so an expired approval must not stand between a retry and its status
// query, and an approval under a new key must not write a request again while an earlier attempt
// of it is unknown or running.
import type { FindUnresolvedInput, IdempotencyRecord } from '@toolseal/audit';
import type { JsonObject } from '@toolseal/contracts';
import { ERROR_CATALOG } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, CEDAR_OTHER, createTestHost, only, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { Approval } from './approval.js';
import type { DispatchedCall } from './dispatch-types.js';
import { DispatcherConfigError } from './dispatcher-config-error.js';

const context = { principal: CEDAR_DRAFTER };
const APPROVAL_TTL_MS = 60_000;

/** A host whose refund write does not report back within 30 ms, and counts its status queries. */
function unknownHost(options: Parameters<typeof createTestHost>[0] = {}): TestHost & { statusQueries: () => number } {
  const host = createTestHost({ deadlines: { create_refund_draft: 30 }, ...options });
  let statusQueries = 0;
  const status = host.impl.create_refund_draft_status;
  host.impl.create_refund_draft_status = (input) => {
    statusQueries += 1;
    return status(input);
  };
  return Object.assign(host, { statusQueries: () => statusQueries });
}

/** The request digest of the baseline refund, from the APPROVAL_REQUIRED preview of a fresh host. */
async function baselineDigest(host: TestHost): Promise<Approval['request_sha256']> {
  const preview = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
  expect(preview.sealed.model_result.error?.code).toBe('APPROVAL_REQUIRED');
  const digest = preview.approval_request?.request_sha256;
  if (digest === undefined) throw new Error('no approval preview');
  return digest;
}

function approvalOf(host: TestHost, digest: Approval['request_sha256'], key: string): Approval {
  return { request_sha256: digest, tool_name: 'create_refund_draft', idempotency_key: key, approved_by: 'supervisor-1', expires_at: host.clock.now() + APPROVAL_TTL_MS };
}

/** The first write under `approval`: the downstream commits only if `commits`, and the handler never answers. */
async function writeWithUnknownOutcome(host: TestHost, approval: Approval, commits: boolean): Promise<DispatchedCall> {
  const original = host.impl.create_refund_draft;
  host.impl.create_refund_draft = (input) => {
    if (commits) void original(input);
    return new Promise<never>(() => undefined);
  };
  const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
  host.impl.create_refund_draft = original;
  expect(result.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
  expect((await host.stores.idempotencyStore.get(approval.idempotency_key))?.state).toBe('unknown');
  return result;
}

async function notesOf(host: TestHost, result: DispatchedCall): Promise<unknown> {
  const entry = (await host.stores.auditLog.query({ call_id: result.call_id }, { limit: 1 })).entries[0];
  return entry?.body['notes'];
}

function expectCode(result: DispatchedCall, code: keyof typeof ERROR_CATALOG): void {
  expect(result.sealed.model_result.error?.code).toBe(code);
  expect(result.sealed.model_result.execution.outcome).toBe(ERROR_CATALOG[code].outcome);
  expect(result.sealed.model_result.error?.recovery).toBe(ERROR_CATALOG[code].recovery);
}

describe('an approval that expired after its write', () => {
  it('the review (t9): the write ended OUTCOME_UNKNOWN and the approval expired: the retry queries status (receipt_reconciled), the handler never runs again', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const approval = approvalOf(host, digest, 'appr-1');
    await writeWithUnknownOutcome(host, approval, true);
    host.clock.advance(APPROVAL_TTL_MS + 1_000);

    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(retry.gate).toBe('status_query');
    expect(retry.sealed.model_result.status).toBe('succeeded');
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-1');
    expect(retry.sealed.protected_audit.downstream.receipt).toBe('receipt-appr-1');
    expect(retry.approval_request).toBeNull();
    expect(host.statusQueries()).toBe(1);
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(await notesOf(host, retry)).toEqual(['approval_expired']);
    const entry = (await host.stores.auditLog.query({ call_id: retry.call_id }, { limit: 1 })).entries[0];
    expect(entry?.body['approval']).toEqual({ approved_by: 'supervisor-1', expires_at: approval.expires_at, request_sha256: digest });

    // Reconciled: a later retry under the same expired approval replays it locally.
    const replay = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(replay.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('replays a write that completed under it', async () => {
    const host = unknownHost();
    const approval = approvalOf(host, await baselineDigest(host), 'appr-done');
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(first.gate).toBe('sealed');
    host.clock.advance(APPROVAL_TTL_MS);
    const again = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(again.gate).toBe('idempotency');
    expect(again.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(again.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('asks for a new approval when nothing ran under it (a new write needs consent), and leaves its key free for one', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const expired = { ...approvalOf(host, digest, 'appr-unused'), expires_at: host.clock.now() };
    const refused = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [expired] }));
    expect(refused.gate).toBe('approval');
    expectCode(refused, 'APPROVAL_INVALID');
    expect(refused.approval_request?.request_sha256).toBe(digest);
    expect(refused.sealed.protected_audit.downstream.idempotency_key).toBeNull();
    expect(host.calls['create_refund_draft']).toBe(0);
    expect(host.statusQueries()).toBe(0);
    // The probe gave the key back: a live approval under it writes, once.
    expect((await host.stores.idempotencyStore.get('appr-unused'))?.state).toBe('released');
    const renewed = approvalOf(host, digest, 'appr-unused');
    const written = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [renewed] }));
    expect(written.gate).toBe('sealed');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('never skips current authorization: a proposal the current facts refuse is refused before any status query or replay', async () => {
    const host = unknownHost();
    const approval = approvalOf(host, await baselineDigest(host), 'appr-authz');
    await writeWithUnknownOutcome(host, approval, true);
    host.clock.advance(APPROVAL_TTL_MS + 1);
    host.facts.state = 'revoked';
    const refused = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(refused.gate).toBe('trusted_checks');
    expectCode(refused, 'STATE_CHANGED');
    expect(host.statusQueries()).toBe(0);
    expect((await host.stores.idempotencyStore.get('appr-authz'))?.state).toBe('unknown');
  });

  it('belongs to its principal: another subject presenting it gets no status query (its request digest differs)', async () => {
    const host = unknownHost();
    const approval = approvalOf(host, await baselineDigest(host), 'appr-owner');
    await writeWithUnknownOutcome(host, approval, true);
    host.clock.advance(APPROVAL_TTL_MS + 1);
    const other = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_OTHER, approvals: [approval] }));
    expect(other.gate).toBe('approval');
    expectCode(other, 'APPROVAL_INVALID');
    expect(host.statusQueries()).toBe(0);
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe('an approval under a new key while an earlier attempt of the request is unresolved', () => {
  it('the review (t9): a fresh key for the same request never writes again while the first outcome is unknown; it answers from the first attempt', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    await writeWithUnknownOutcome(host, approvalOf(host, digest, 'appr-1'), false);
    host.clock.advance(APPROVAL_TTL_MS + 1_000);

    // The host dropped the expired approval and approved the same request again under a new key.
    const fresh = approvalOf(host, digest, 'appr-2');
    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [fresh] }));
    expect(retry.gate).toBe('status_query');
    expectCode(retry, 'OUTCOME_UNKNOWN');
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-1');
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(host.statusQueries()).toBe(1);
    expect(await notesOf(host, retry)).toEqual(['earlier_attempt_unresolved', 'status_not_committed']);
    expect((await host.stores.idempotencyStore.get('appr-2'))?.state).toBe('released');

    // The downstream finds the first write after all: reconciled under its own key, still one write.
    host.drafts.set('appr-1', { draft_ref: 'DRAFT-APPR1', order_ref: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A' } satisfies JsonObject);
    const reconciled = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [fresh] }));
    expect(reconciled.gate).toBe('status_query');
    expect(reconciled.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(reconciled.sealed.protected_audit.downstream.receipt).toBe('receipt-appr-1');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('answers from a write still running under another key (OUTCOME_UNKNOWN), without starting a second one', async () => {
    const host = unknownHost({ deadlines: { create_refund_draft: 5_000 } });
    const digest = await baselineDigest(host);
    let finish: () => void = () => undefined;
    host.impl.create_refund_draft = () =>
      new Promise((resolve) => {
        finish = () => resolve({ kind: 'error', code: 'RULE_REJECTED' });
      });
    const running = host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-a')] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(host.calls['create_refund_draft']).toBe(1);
    const second = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-b')] }));
    expect(second.gate).toBe('idempotency');
    expectCode(second, 'OUTCOME_UNKNOWN');
    expect(await notesOf(host, second)).toEqual(['earlier_attempt_unresolved', 'in_progress_elsewhere']);
    expect(host.calls['create_refund_draft']).toBe(1);
    finish();
    expect(only(await running).sealed.model_result.error?.code).toBe('RULE_REJECTED');
    expect((await host.stores.idempotencyStore.get('appr-b'))?.state).toBe('released');
  });

  it('two approvals of one request under two keys, used at the same time: at most one write', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    // Two turns at once, each with its own approval: each claims its key, then looks for the
    // other's; whichever sees the other's claim backs off (both may: then neither writes yet).
    const turns = await Promise.all(
      ['appr-x', 'appr-y'].map((key) =>
        host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, key)] }),
      ),
    );
    const results = turns.map(only);
    expect(host.calls['create_refund_draft']).toBeLessThanOrEqual(1);
    expect(results.filter((result) => result.gate === 'sealed')).toHaveLength(host.calls['create_refund_draft'] ?? 0);
    for (const result of results) {
      if (result.gate !== 'sealed') expectCode(result, 'OUTCOME_UNKNOWN');
    }
  });

  it('a write under a new key goes ahead once the earlier attempt is resolved (a new approval is a new write)', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-1')] }));
    expect(first.gate).toBe('sealed');
    const second = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-2')] }));
    expect(second.gate).toBe('sealed');
    expect(host.calls['create_refund_draft']).toBe(2);
  });

  it('without any approval, an unresolved earlier attempt is answered by its status query instead of APPROVAL_REQUIRED', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    await writeWithUnknownOutcome(host, approvalOf(host, digest, 'appr-1'), true);
    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retry.gate).toBe('status_query');
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-1');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('does not start a write when the lookup fails: TIMEOUT_BEFORE_EXECUTE, nothing ran, its key given back', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    host.stores.idempotencyStore.findUnresolved = () => Promise.reject(new Error('store down'));
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-1')] }));
    expect(result.gate).toBe('idempotency');
    expectCode(result, 'TIMEOUT_BEFORE_EXECUTE');
    expect(result.sealed.model_result.error?.retry_after_ms).toBe(1_000);
    expect(await notesOf(host, result)).toEqual(['idempotency_store_unavailable']);
    expect(host.calls['create_refund_draft']).toBe(0);
    expect((await host.stores.idempotencyStore.get('appr-1'))?.state).toBe('released');
  });

  it('reads the lookup without trusting it: records of another request, a resolved state or a malformed key are ignored', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const record = (fields: Partial<IdempotencyRecord>): IdempotencyRecord => ({
      key: 'appr-other',
      request_sha256: digest,
      state: 'unknown',
      owner: 'h',
      fencing_token: 1,
      lease_expires_at: 0,
      created_at: 0,
      updated_at: 0,
      result: null,
      ...fields,
    });
    const asked: FindUnresolvedInput[] = [];
    host.stores.idempotencyStore.findUnresolved = async (input) => {
      asked.push(input);
      return [record({ request_sha256: 'f'.repeat(64) }), record({ state: 'completed' }), record({ key: 'bad\u0000key' }), record({ key: 'appr-1' })];
    };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-1')] }));
    expect(result.gate).toBe('sealed');
    expect(asked).toEqual([{ request_sha256: digest, limit: 4 }]);
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe('a store without findUnresolved', () => {
  it('still lets an expired approval reach its status query (the approval names the key)', async () => {
    const host = unknownHost();
    delete host.stores.idempotencyStore.findUnresolved;
    const approval = approvalOf(host, await baselineDigest(host), 'appr-1');
    await writeWithUnknownOutcome(host, approval, true);
    host.clock.advance(APPROVAL_TTL_MS + 1);
    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('is refused at start-up when findUnresolved is present but not a function', () => {
    let thrown: unknown;
    try {
      createTestHost({
        options: {
          stores: (() => {
            const host = createTestHost();
            return { auditLog: host.stores.auditLog, idempotencyStore: { ...host.stores.idempotencyStore, findUnresolved: 'yes' as never } };
          })(),
        },
      });
    } catch (error) {
      thrown = error;
    }
    expect(DispatcherConfigError.isInstance(thrown)).toBe(true);
    expect(String(thrown)).toMatch(/findUnresolved must be a function/);
  });
});
