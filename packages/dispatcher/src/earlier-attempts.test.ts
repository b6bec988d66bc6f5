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
  const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
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
    const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: retry.call_id }, { limit: 1 })).entries[0];
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

  it('asks for a new approval when nothing ran under it (a new write needs consent), and writes nothing under its key', async () => {
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
    // The key was read, never claimed: no record, and a live approval under it writes, once.
    expect(await host.stores.idempotencyStore.get('appr-unused')).toBeUndefined();
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
      intent_sha256: null,
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
      // Three records: one short of the limit, so the list is complete.
      return [record({ request_sha256: 'f'.repeat(64) }), record({ state: 'completed' }), record({ key: 'bad\u0000key' })];
    };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-1')] }));
    expect(result.gate).toBe('sealed');
    // Then the intent lookup (attempts under other contract revisions): none of these records has one.
    const intent = host.digester.digestTagged('toolseal.dispatcher.intent_key.v1', {
      tenant_id: CEDAR_DRAFTER.tenant_id,
      subject_id: CEDAR_DRAFTER.subject_id,
      tool_name: 'create_refund_draft',
      arguments: BASELINE_REFUND,
    });
    expect(asked).toEqual([
      { request_sha256: digest, limit: 4 },
      { intent_sha256: intent, limit: 4 },
    ]);
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

/** A claim another host holds on `key` for the baseline request (its write has not started). */
async function claimElsewhere(host: TestHost, digest: Approval['request_sha256'], key: string, leaseMs = 60_000): Promise<number> {
  const claim = await host.stores.idempotencyStore.claim({ key, request_sha256: digest, owner: 'other-host', lease_ms: leaseMs });
  if (claim.kind !== 'claimed') throw new Error(`${key} was not claimed`);
  return claim.fencing_token;
}

/** Wraps the store's `findUnresolved`: `after` runs once each lookup has answered, before the dispatcher reads it. */
function afterLookup(host: TestHost, after: (found: IdempotencyRecord[]) => Promise<void> | void): string[][] {
  const store = host.stores.idempotencyStore;
  const find = store.findUnresolved?.bind(store);
  if (find === undefined) throw new Error('the memory store has findUnresolved');
  const listed: string[][] = [];
  store.findUnresolved = async (input) => {
    const found = await find(input);
    listed.push(found.map((record) => `${record.key}:${record.state}`));
    await after(found);
    return found;
  };
  return listed;
}

describe('every unresolved attempt the store lists is looked at, not only the first', () => {
  it('the review: an unknown attempt listed after a short-lived claim answers the call (status query); the new key never writes', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    // The oldest record of the request: an attempt under appr-old that ran nothing.
    await store.release({ key: 'appr-old', fencing_token: await claimElsewhere(host, digest, 'appr-old', 1_000) });
    host.clock.advance(1_000);
    await writeWithUnknownOutcome(host, approvalOf(host, digest, 'appr-unknown'), true);
    // Another host claims appr-old again for a moment (it keeps its first created_at, so it is
    // listed first) and gives it back right after the lookup.
    const token = await claimElsewhere(host, digest, 'appr-old');
    host.clock.advance(1);
    const listed = afterLookup(host, async () => {
      await store.release({ key: 'appr-old', fencing_token: token });
    });

    const second = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-new')] }));
    expect(listed[0]).toEqual(['appr-old:claimed', 'appr-unknown:unknown', 'appr-new:claimed']);
    expect(second.gate).toBe('status_query');
    expect(second.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(second.sealed.protected_audit.downstream.idempotency_key).toBe('appr-unknown');
    expect(await notesOf(host, second)).toEqual(['earlier_attempt_unresolved']);
    expect(host.calls['create_refund_draft']).toBe(1);
    expect([...host.drafts.keys()]).toEqual(['appr-unknown']);
    expect((await store.get('appr-new'))?.state).toBe('released');
    // appr-old, where nothing ran, was not even claimed: its token is the other host's.
    expect(await store.get('appr-old')).toMatchObject({ state: 'released', fencing_token: token });
  });

  it('a claim that turns out free does not end the search: the next attempt, a live claim, answers OUTCOME_UNKNOWN and nothing runs', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    const first = await claimElsewhere(host, digest, 'appr-a');
    host.clock.advance(1);
    const second = await claimElsewhere(host, digest, 'appr-b');
    afterLookup(host, async () => {
      await store.release({ key: 'appr-a', fencing_token: first });
    });

    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-new')] }));
    expect(result.gate).toBe('idempotency');
    expectCode(result, 'OUTCOME_UNKNOWN');
    expect(result.sealed.protected_audit.downstream.idempotency_key).toBe('appr-b');
    expect(await notesOf(host, result)).toEqual(['earlier_attempt_unresolved', 'earlier_attempt_free', 'in_progress_elsewhere']);
    expect(host.calls['create_refund_draft']).toBe(0);
    expect((await store.get('appr-new'))?.state).toBe('released');
    expect((await store.get('appr-a'))?.state).toBe('released');
    expect(await store.get('appr-b')).toMatchObject({ state: 'claimed', owner: 'other-host', fencing_token: second });
  });

  it('without a live approval too: an unknown attempt answers (status query) though a live claim is listed before it, which is left alone', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    // appr-claimed is the older record (an attempt that gave its key back), claimed again by another
    // host once appr-unknown's write had started: a live claim, listed first.
    const store = host.stores.idempotencyStore;
    await store.release({ key: 'appr-claimed', fencing_token: await claimElsewhere(host, digest, 'appr-claimed') });
    host.clock.advance(1);
    await writeWithUnknownOutcome(host, approvalOf(host, digest, 'appr-unknown'), true);
    const token = await claimElsewhere(host, digest, 'appr-claimed');
    const listed = afterLookup(host, () => undefined);
    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retry.gate).toBe('status_query');
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(listed[0]).toEqual(['appr-claimed:claimed', 'appr-unknown:unknown']);
    expect(retry.sealed.protected_audit.downstream.idempotency_key).toBe('appr-unknown');
    expect(host.calls['create_refund_draft']).toBe(1);
    expect(await store.get('appr-claimed')).toMatchObject({ state: 'claimed', owner: 'other-host', fencing_token: token });
  });

  for (const order of ['expired approval first', 'new approval first'] as const) {
    it(`the review (race, ${order}): an expired approval's turn and a new approval's turn at once, while an attempt is unknown, write nothing new`, async () => {
      const host = unknownHost();
      const digest = await baselineDigest(host);
      const store = host.stores.idempotencyStore;
      // Attempt 1 under appr-old: the downstream refused for now (RATE_LIMIT), so its key was given back.
      const old = { ...approvalOf(host, digest, 'appr-old'), expires_at: host.clock.now() + 5_000 };
      const write = host.impl.create_refund_draft;
      host.impl.create_refund_draft = () => ({ kind: 'error', code: 'RATE_LIMIT', retryAfterMs: 1_000 });
      const refused = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [old] }));
      host.impl.create_refund_draft = write;
      expectCode(refused, 'RATE_LIMIT');
      expect((await store.get('appr-old'))?.state).toBe('released');
      host.clock.advance(1_000);
      // Attempt 2 under appr-2: committed downstream, never reported back.
      await writeWithUnknownOutcome(host, approvalOf(host, digest, 'appr-2'), true);
      host.clock.advance(10_000);
      // At the moment a handler starts, no other attempt of the request may be started or unknown.
      const startedWhileUnresolved: string[] = [];
      host.impl.create_refund_draft = async (input) => {
        const others = await store.findUnresolved?.({ request_sha256: digest, limit: 100 });
        for (const record of others ?? []) {
          if (record.key !== input.idempotency_key && record.state !== 'claimed') startedWhileUnresolved.push(`${record.key}:${record.state}`);
        }
        return write(input);
      };

      const probe = () => host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [old] });
      const fresh = () => host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-3')] });
      const turns = order === 'expired approval first' ? await Promise.all([probe(), fresh()]) : (await Promise.all([fresh(), probe()])).reverse();
      expect(startedWhileUnresolved).toEqual([]);
      // Both are answered from attempt 2: its status query, or its replay once reconciled.
      for (const turn of turns) {
        const result = only(turn);
        expect(result.sealed.protected_audit.downstream.idempotency_key).toBe('appr-2');
        expect(['receipt_reconciled', 'local_replay']).toContain(result.sealed.model_result.execution.delivery);
        expect(result.sealed.model_result.status).toBe('succeeded');
      }
      expect(host.calls['create_refund_draft']).toBe(2);
      expect([...host.drafts.keys()]).toEqual(['appr-2']);
      expect((await store.get('appr-old'))?.state).toBe('released');
    });
  }

  it('a full lookup whose attempts all turn out free does not start the write (TIMEOUT_BEFORE_EXECUTE): the list may have left one out', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    const find = store.findUnresolved?.bind(store);
    if (find === undefined) throw new Error('the memory store has findUnresolved');
    // The store lists the call's own claim and three attempts that are gone by the time they are
    // claimed: four records, the limit.
    store.findUnresolved = async (input) => {
      const [own] = await find(input);
      if (own === undefined) throw new Error('the own claim is unresolved');
      return [own, ...['appr-a', 'appr-b', 'appr-c'].map((key) => ({ ...own, key, owner: 'other-host' }))];
    };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-new')] }));
    expect(result.gate).toBe('idempotency');
    expectCode(result, 'TIMEOUT_BEFORE_EXECUTE');
    expect(result.sealed.model_result.error?.retry_after_ms).toBe(1_000);
    expect(result.sealed.protected_audit.downstream.idempotency_key).toBe('appr-new');
    expect(await notesOf(host, result)).toEqual([
      'earlier_attempt_unresolved',
      'earlier_attempt_free',
      'earlier_attempt_free',
      'earlier_attempt_free',
      'earlier_attempts_beyond_lookup',
    ]);
    expect(host.calls['create_refund_draft']).toBe(0);
    expect((await store.get('appr-new'))?.state).toBe('released');
  });

  it('one record short of the limit, the same free attempts let the write go on (its own key is listed but never claimed again)', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    const find = store.findUnresolved?.bind(store);
    if (find === undefined) throw new Error('the memory store has findUnresolved');
    store.findUnresolved = async (input) => {
      const [own] = await find(input);
      if (own === undefined) throw new Error('the own claim is unresolved');
      return [own, ...['appr-a', 'appr-b'].map((key) => ({ ...own, key, owner: 'other-host' }))];
    };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-new')] }));
    expect(result.gate).toBe('sealed');
    expect(await notesOf(host, result)).toEqual(['earlier_attempt_unresolved', 'earlier_attempt_free', 'earlier_attempt_free']);
    expect(host.calls['create_refund_draft']).toBe(1);
  });
});

describe("an expired approval's key is read, and claimed only when a write started under it", () => {
  for (const order of ['expired first', 'renewed first'] as const) {
    it(`the review (${order}): an expired and a renewed approval under the same key at once: the renewed one writes, the expired one writes nothing`, async () => {
      const host = unknownHost();
      const digest = await baselineDigest(host);
      const expired = { ...approvalOf(host, digest, 'appr-k'), expires_at: host.clock.now() };
      const renewed = approvalOf(host, digest, 'appr-k');
      const probe = () => host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [expired] });
      const live = () => host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [renewed] });
      const [probed, written] =
        order === 'expired first'
          ? await Promise.all([probe(), live()])
          : await Promise.all([live(), probe()]).then(([renewedTurn, expiredTurn]) => [expiredTurn, renewedTurn] as const);
      const write = only(written);
      expect(write.gate).toBe('sealed');
      expect(write.sealed.model_result.status).toBe('succeeded');
      expect(host.calls['create_refund_draft']).toBe(1);
      expect((await host.stores.idempotencyStore.get('appr-k'))?.state).toBe('completed');
      // The expired one asked for a new approval, was told the write is in progress, or replays it.
      const answer = only(probed).sealed.model_result;
      expect(['APPROVAL_INVALID', 'OUTCOME_UNKNOWN', 'local_replay']).toContain(answer.error?.code ?? answer.execution.delivery);
    });
  }

  it('a key another call holds a live claim on is not claimed: the lookup answers OUTCOME_UNKNOWN (in progress elsewhere)', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const token = await claimElsewhere(host, digest, 'appr-k');
    const store = host.stores.idempotencyStore;
    const claimed: string[] = [];
    const claim = store.claim.bind(store);
    store.claim = (input) => {
      claimed.push(input.key);
      return claim(input);
    };
    const expired = { ...approvalOf(host, digest, 'appr-k'), expires_at: host.clock.now() };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [expired] }));
    expect(result.gate).toBe('idempotency');
    expectCode(result, 'OUTCOME_UNKNOWN');
    expect(await notesOf(host, result)).toEqual(['approval_expired', 'earlier_attempt_unresolved', 'in_progress_elsewhere']);
    expect(claimed).toEqual([]);
    expect(await store.get('appr-k')).toMatchObject({ state: 'claimed', owner: 'other-host', fencing_token: token });
  });

  it('a started record whose lease ran out is claimed: it turns unknown and its status is queried', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    const token = await claimElsewhere(host, digest, 'appr-k');
    await store.markStarted({ key: 'appr-k', fencing_token: token, lease_ms: 1_000 });
    host.clock.advance(2_000);
    const expired = { ...approvalOf(host, digest, 'appr-k'), expires_at: host.clock.now() - 1 };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [expired] }));
    expect(result.gate).toBe('status_query');
    expectCode(result, 'OUTCOME_UNKNOWN');
    expect(host.statusQueries()).toBe(1);
    expect((await store.get('appr-k'))?.state).toBe('unknown');
  });

  it('a read that fails answers TIMEOUT_BEFORE_EXECUTE (nothing was written, nothing ran)', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    host.stores.idempotencyStore.get = () => Promise.reject(new Error('store down'));
    const expired = { ...approvalOf(host, digest, 'appr-k'), expires_at: host.clock.now() };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [expired] }));
    expect(result.gate).toBe('idempotency');
    expectCode(result, 'TIMEOUT_BEFORE_EXECUTE');
    expect(result.sealed.model_result.error?.retry_after_ms).toBe(1_000);
    expect(await notesOf(host, result)).toEqual(['approval_expired', 'idempotency_store_unavailable']);
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('a store without get is refused at start-up (get is not optional)', () => {
    const stores = createTestHost().stores;
    const { get: _unused, ...withoutGet } = stores.idempotencyStore;
    let thrown: unknown;
    try {
      createTestHost({ options: { stores: { auditLog: stores.auditLog, idempotencyStore: withoutGet as never } } });
    } catch (error) {
      thrown = error;
    }
    expect(DispatcherConfigError.isInstance(thrown)).toBe(true);
    expect(String(thrown)).toMatch(/must be an IdempotencyStore/);
  });
});

/** Records every key the dispatcher claims from now on. */
function recordClaims(host: TestHost): string[] {
  const store = host.stores.idempotencyStore;
  const claim = store.claim.bind(store);
  const claimed: string[] = [];
  store.claim = (input) => {
    claimed.push(input.key);
    return claim(input);
  };
  return claimed;
}

/** Another host's write under `key` that has started (lease `leaseMs`); returns its fencing token. */
async function startElsewhere(host: TestHost, digest: Approval['request_sha256'], key: string, leaseMs: number): Promise<number> {
  const token = await claimElsewhere(host, digest, key);
  const started = await host.stores.idempotencyStore.markStarted({ key, fencing_token: token, lease_ms: leaseMs });
  if (!started.ok) throw new Error(`${key} did not start`);
  return token;
}

describe('a call without a live approval acts on what it read, and claims only where the store requires it (review round 2)', () => {
  it('R1: a started write read under the expired key and given back right after the read: the probe claims nothing, and a renewed approval writes', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    // Another host's write under appr-k has started (live lease); its downstream will say it did nothing.
    const token = await startElsewhere(host, digest, 'appr-k', 60_000);
    const renewed = () => host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-k')] });
    const get = store.get.bind(store);
    store.get = async (key) => {
      const read = await get(key);
      store.get = get;
      // Right after the probe's read, the started write declares it did nothing and gives the key back.
      expect((await store.release({ key: 'appr-k', fencing_token: token, handler_declared_not_started: true })).ok).toBe(true);
      return read;
    };
    // Were the probe to claim the key now free, the person's renewed approval would be used while
    // it holds that claim (the review's window).
    const claim = store.claim.bind(store);
    const probeClaims: string[] = [];
    let live: DispatchedCall | undefined;
    store.claim = async (input) => {
      const answer = await claim(input);
      if (live === undefined) {
        probeClaims.push(input.key);
        store.claim = claim;
        live = only(await renewed());
      }
      return answer;
    };
    const expired = { ...approvalOf(host, digest, 'appr-k'), expires_at: host.clock.now() };
    const probe = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [expired] }));
    store.claim = claim;
    live ??= only(await renewed());

    // The probe read a started write with a live lease: in progress elsewhere, as a claim would say, but no claim.
    expect(probeClaims).toEqual([]);
    expect(probe.gate).toBe('idempotency');
    expectCode(probe, 'OUTCOME_UNKNOWN');
    expect(await notesOf(host, probe)).toEqual(['approval_expired', 'in_progress_elsewhere']);
    expect(live.gate).toBe('sealed');
    expect(live.sealed.model_result.status).toBe('succeeded');
    expect(host.calls['create_refund_draft']).toBe(1);
    expect((await get('appr-k'))?.state).toBe('completed');
  });

  it('R1 through the lookup: a started write listed for the request and given back right after the lookup is not claimed; a live approval under its key writes', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    const token = await startElsewhere(host, digest, 'appr-x', 60_000);
    const claimed = recordClaims(host);
    const listed = afterLookup(host, async () => {
      await store.release({ key: 'appr-x', fencing_token: token, handler_declared_not_started: true });
    });
    const probe = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(listed[0]).toEqual(['appr-x:started']);
    expectCode(probe, 'OUTCOME_UNKNOWN');
    expect(probe.sealed.protected_audit.downstream.idempotency_key).toBe('appr-x');
    expect(await notesOf(host, probe)).toEqual(['earlier_attempt_unresolved', 'in_progress_elsewhere']);
    expect(claimed).toEqual([]);
    expect(await store.get('appr-x')).toMatchObject({ state: 'released', owner: 'other-host', fencing_token: token });

    const live = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-x')] }));
    expect(live.gate).toBe('sealed');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('R2: a claim the store required (a started write whose lease ran out) comes back free and its release fails: TIMEOUT_BEFORE_EXECUTE for the lease, never APPROVAL_REQUIRED', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    const token = await startElsewhere(host, digest, 'appr-x', 1_000);
    host.clock.advance(2_000);
    const release = store.release.bind(store);
    // The owner's late answer (it did nothing) lands between the lookup and the claim.
    afterLookup(host, async () => {
      await release({ key: 'appr-x', fencing_token: token, handler_declared_not_started: true });
    });
    store.release = async (input) => {
      if (input.key === 'appr-x') throw new Error('store blip');
      return release(input);
    };
    const probe = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(probe.gate).toBe('idempotency');
    expectCode(probe, 'TIMEOUT_BEFORE_EXECUTE');
    // The dispatcher's default lease (30 s): the key is held that long.
    expect(probe.sealed.model_result.error?.retry_after_ms).toBe(30_000);
    expect(probe.sealed.protected_audit.downstream.idempotency_key).toBe('appr-x');
    expect(await notesOf(host, probe)).toEqual(['earlier_attempt_unresolved', 'release_failed']);
    expect(probe.approval_request).toBeNull();
    expect(host.calls['create_refund_draft']).toBe(0);
    expect(await store.get('appr-x')).toMatchObject({ state: 'claimed', owner: 'test-host' });

    // As the answer said: until the lease runs out a live approval under the key is turned away
    // (nothing runs); after it, it writes, once.
    store.release = release;
    const early = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-x')] }));
    expectCode(early, 'OUTCOME_UNKNOWN');
    expect(host.calls['create_refund_draft']).toBe(0);
    host.clock.advance(30_000);
    const live = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approvalOf(host, digest, 'appr-x')] }));
    expect(live.gate).toBe('sealed');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('a claim the store required that comes back free and is given back (confirmed) does not answer: the call asks for an approval', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const store = host.stores.idempotencyStore;
    const token = await startElsewhere(host, digest, 'appr-k', 1_000);
    host.clock.advance(2_000);
    const get = store.get.bind(store);
    store.get = async (key) => {
      const read = await get(key);
      store.get = get;
      await store.release({ key: 'appr-k', fencing_token: token, handler_declared_not_started: true });
      return read;
    };
    const claimed = recordClaims(host);
    const expired = { ...approvalOf(host, digest, 'appr-k'), expires_at: host.clock.now() };
    const probe = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [expired] }));
    expect(probe.gate).toBe('approval');
    expectCode(probe, 'APPROVAL_INVALID');
    expect(await notesOf(host, probe)).toEqual(['approval_expired', 'earlier_attempt_free']);
    expect(claimed).toEqual(['appr-k']);
    expect((await get('appr-k'))?.state).toBe('released');
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it('replays a completed record from the read alone (no claim), after the replay checks', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const approval = approvalOf(host, digest, 'appr-done');
    const first = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(first.gate).toBe('sealed');
    host.clock.advance(APPROVAL_TTL_MS);
    const claimed = recordClaims(host);
    const replay = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(replay.gate).toBe('idempotency');
    expect(replay.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(replay.sealed.model_result.data).toEqual(first.sealed.model_result.data);
    expect(claimed).toEqual([]);
    expect(host.calls['create_refund_draft']).toBe(1);

    // The checks of a replay still run: a stored receipt that does not match the package is refused.
    const store = host.stores.idempotencyStore;
    const get = store.get.bind(store);
    store.get = async (key) => {
      const read = await get(key);
      return read?.result ? { ...read, result: { ...read.result, receipt: 'forged-receipt' } } : read;
    };
    const forged = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(forged.gate).toBe('idempotency');
    expectCode(forged, 'STATUS_CONFLICT');
    expect(await notesOf(host, forged)).toEqual(['approval_expired', 'stored_result_unverifiable']);
    expect(claimed).toEqual([]);
  });

  it('queries the status of an unknown record without a claim (reconcile needs no fencing token)', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const approval = approvalOf(host, digest, 'appr-unknown');
    await writeWithUnknownOutcome(host, approval, true);
    host.clock.advance(APPROVAL_TTL_MS);
    const claimed = recordClaims(host);
    const retry = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval] }));
    expect(retry.gate).toBe('status_query');
    expect(retry.sealed.model_result.execution.delivery).toBe('receipt_reconciled');
    expect(claimed).toEqual([]);
    expect(host.statusQueries()).toBe(1);
    expect((await host.stores.idempotencyStore.get('appr-unknown'))?.state).toBe('completed');
    expect(host.calls['create_refund_draft']).toBe(1);
  });

  it('a record of another request under the expired key is IDEMPOTENCY_CONFLICT, read without a claim', async () => {
    const host = unknownHost();
    const digest = await baselineDigest(host);
    const other = 'f'.repeat(64) as Approval['request_sha256'];
    const token = await startElsewhere(host, other, 'appr-k', 60_000);
    expect(token).toBeGreaterThan(0);
    const claimed = recordClaims(host);
    const expired = { ...approvalOf(host, digest, 'appr-k'), expires_at: host.clock.now() };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [expired] }));
    expect(result.gate).toBe('idempotency');
    expectCode(result, 'IDEMPOTENCY_CONFLICT');
    expect(claimed).toEqual([]);
    expect(host.calls['create_refund_draft']).toBe(0);
  });
});
