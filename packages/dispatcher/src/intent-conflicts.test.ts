// A write whose earlier attempt is unresolved must not run again under a new key, even after a
// deploy bumped a contract revision (review finding): `request_sha256` binds the revisions, so
// the request-based lookup cannot see the earlier attempt; every claim also stores the intent
// digest (tenant, subject, tool, arguments; no revisions), and the dispatcher looks that up.
import { StoreInputError, type FindCompletedInput, type FindUnresolvedInput, type IdempotencyStore } from '@toolseal/audit';
import type { PrincipalContext } from '@toolseal/contracts';
import { ERROR_CATALOG } from '@toolseal/errors';
import { createToolRegistry } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, CEDAR_OTHER, createTestHost, loadToolSpecs, only, toolCall, type TestHost } from './__fixtures__/test-host.js';
import type { Approval } from './approval.js';
import type { DispatchedCall } from './dispatch-types.js';

const context = { principal: CEDAR_DRAFTER };
const TTL_MS = 60_000;

/**
 * A host over `host`'s stores whose `findUnresolved` answers lookups by intent with `byIntent`
 * (by request as the store does).
 */
function withIntentLookup(host: TestHost, byIntent: (input: FindUnresolvedInput) => Promise<unknown[]> | unknown[]): TestHost {
  const store = host.stores.idempotencyStore;
  const findUnresolved = store.findUnresolved?.bind(store);
  const wrapped: IdempotencyStore = Object.assign(Object.create(store) as IdempotencyStore, {
    findUnresolved: async (input: FindUnresolvedInput) =>
      input.intent_sha256 === undefined ? (findUnresolved === undefined ? [] : findUnresolved(input)) : byIntent(input),
  });
  return createTestHost({ clock: host.clock, options: { stores: { auditLog: host.stores.auditLog, idempotencyStore: wrapped } } });
}

/** The refund tool's registry after a deploy that bumped its effect revision. */
function bumpedRegistry() {
  const specs = loadToolSpecs();
  const refund = structuredClone(specs.createRefundDraft);
  refund.contract.effect_revision = 'refund-draft-effect-v2';
  return createToolRegistry([specs.getOrder, specs.kbSearch, refund]);
}

async function preview(host: TestHost): Promise<DispatchedCall> {
  return only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
}

function approval(host: TestHost, digest: string, key: string): Approval {
  return { request_sha256: digest, tool_name: 'create_refund_draft', idempotency_key: key, approved_by: 'supervisor-1', expires_at: host.clock.now() + TTL_MS };
}

async function notesOf(host: TestHost, result: DispatchedCall): Promise<unknown> {
  const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 1 })).entries[0];
  return entry?.body['notes'];
}

/** Before the deploy: an approved refund whose handler committed downstream and never answered. */
async function unresolvedBeforeDeploy(): Promise<{ before: TestHost; digest: string }> {
  const before = createTestHost({ deadlines: { create_refund_draft: 30 } });
  const digest = (await preview(before)).approval_request?.request_sha256 as string;
  // The downstream commits; the handler never answers.
  const original = before.impl.create_refund_draft;
  before.impl.create_refund_draft = (input) => {
    void original(input);
    return new Promise<never>(() => undefined);
  };
  const first = only(
    await before.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(before, digest, 'appr-v1')] }),
  );
  expect(first.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
  expect((await before.stores.idempotencyStore.get('appr-v1'))?.state).toBe('unknown');
  return { before, digest };
}

/**
 * After the deploy: a new dispatcher over the same stores and clock, with the bumped contract.
 * (Its `stores` and `registry` fields are the host's own defaults: read `before.stores` and
 * `BUMPED`.)
 */
const BUMPED = bumpedRegistry();
function afterDeploy(before: TestHost): TestHost {
  return createTestHost({ clock: before.clock, options: { stores: before.stores, registry: BUMPED } });
}

describe('a completed write retried after a deploy that bumped a revision the request digest does not bind', () => {
  it('answers STATUS_CONFLICT with the note stored_under_other_revisions, and never writes again', async () => {
    const before = createTestHost();
    const digest = (await preview(before)).approval_request?.request_sha256 as string;
    const granted = { ...context, approvals: [approval(before, digest, 'appr-v1')] };
    const first = only(await before.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], granted));
    expect(first.sealed.model_result.status).toBe('succeeded');
    // The same retry before the deploy replays the stored result.
    const replayed = only(await before.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], granted));
    expect(replayed.sealed.model_result.execution.delivery).toBe('local_replay');

    const specs = loadToolSpecs();
    const refund = structuredClone(specs.createRefundDraft);
    refund.contract.handler_revision = `${refund.contract.handler_revision}-next`;
    const after = createTestHost({ clock: before.clock, options: { stores: before.stores, registry: createToolRegistry([specs.getOrder, specs.kbSearch, refund]) } });
    let runs = 0;
    const original = after.impl.create_refund_draft;
    after.impl.create_refund_draft = (input) => {
      runs += 1;
      return original(input);
    };
    // The approval still matches: the request digest does not bind the handler revision.
    const retried = only(await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], granted));
    expect(retried.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(retried.sealed.model_result.error?.recovery).toBe(ERROR_CATALOG.STATUS_CONFLICT.recovery);
    expect(runs).toBe(0);
    expect(await notesOf(before, retried)).toEqual(['stored_under_other_revisions']);
  });
});

describe("an approval's key reused for the same intent after a deploy (the fresh review)", () => {
  const KEY = 'refund-ORDER-C7';

  /** A refund written under `KEY` before the deploy, and a host after it whose store's `get` is `get` (the store's own by default). */
  async function reusedKeyAfterDeploy(get?: IdempotencyStore['get'], storeTimeoutMs?: number): Promise<{ before: TestHost; after: TestHost }> {
    const before = createTestHost();
    const digest = (await preview(before)).approval_request?.request_sha256 as string;
    const first = only(await before.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(before, digest, KEY)] }));
    expect(first.sealed.model_result.status).toBe('succeeded');
    const store = before.stores.idempotencyStore;
    const idempotencyStore = get === undefined ? store : Object.assign(Object.create(store) as IdempotencyStore, { get });
    const after = createTestHost({
      clock: before.clock,
      options: { stores: { auditLog: before.stores.auditLog, idempotencyStore }, registry: BUMPED, ...(storeTimeoutMs === undefined ? {} : { storeTimeoutMs }) },
    });
    return { before, after };
  }

  /** The same intent approved again after the deploy, under `KEY` (a host deriving approval keys from a business id). */
  async function approveAgain(after: TestHost, principal: PrincipalContext = CEDAR_DRAFTER, signal?: AbortSignal): Promise<DispatchedCall> {
    const approvals = [approval(after, await digestAfterDeploy(after, principal), KEY)];
    return only(await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal, approvals, ...(signal === undefined ? {} : { signal }) }));
  }

  it('answers STATUS_CONFLICT (the key committed that intent), while a colliding key of another request stays IDEMPOTENCY_CONFLICT', async () => {
    const { before, after } = await reusedKeyAfterDeploy();
    const retried = await approveAgain(after);
    expect(retried.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(retried.sealed.model_result.execution.outcome).toBe('unknown');
    expect(await notesOf(before, retried)).toEqual(['same_intent_other_request']);
    expect(after.calls['create_refund_draft']).toBe(0);
    // Another principal's request under that same key is another request: nothing of it started.
    const other = await approveAgain(after, CEDAR_OTHER);
    expect(other.sealed.model_result.error?.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(other.sealed.model_result.execution.outcome).toBe('not_started');
  });

  it('the second fresh review: a record that cannot be read answers STATUS_CONFLICT (whether the write happened is not known), noted', async () => {
    const { before, after } = await reusedKeyAfterDeploy(async () => {
      throw new Error('store outage');
    });
    const retried = await approveAgain(after);
    expect(retried.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(await notesOf(before, retried)).toEqual(['conflict_record_unread']);
    expect(after.calls['create_refund_draft']).toBe(0);
  });

  it("the host's abort during that read answers TIMEOUT_BEFORE_EXECUTE at the deadline gate, not a conflict", async () => {
    const { before, after } = await reusedKeyAfterDeploy(() => new Promise<never>(() => undefined), 60_000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const retried = await approveAgain(after, CEDAR_DRAFTER, controller.signal);
    expect(retried.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(retried.gate).toBe('deadline');
    expect(await notesOf(before, retried)).toEqual(['aborted_during_store_call']);
    expect(after.calls['create_refund_draft']).toBe(0);
  });
});

describe('an unresolved write of the same intent under other contract revisions', () => {
  it('the review: a new approval after the deploy does not write again (STATUS_CONFLICT: outcome unknown, human review)', async () => {
    const { before, digest } = await unresolvedBeforeDeploy();
    const after = afterDeploy(before);

    // The preview asks for no approval of a write whose earlier attempt may have run.
    const asked = await preview(after);
    // Not IDEMPOTENCY_CONFLICT: its "failed, not started" would tell the model the earlier write,
    // whose outcome nobody knows, did not happen (the second review).
    expect(asked.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(asked.sealed.model_result.error?.recovery).toBe('human_review');
    expect(asked.sealed.model_result.status).toBe('unknown');
    expect(asked.sealed.model_result.execution.outcome).toBe('unknown');
    expect(asked.approval_request).toBeNull();
    expect(await notesOf(before, asked)).toEqual(['unresolved_attempt_other_revisions']);

    // An approval of the new request (another digest: the revisions differ) does not run it either.
    const newDigest = await digestAfterDeploy(after);
    expect(newDigest).not.toBe(digest);
    const approved = only(
      await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(after, newDigest, 'appr-v2')] }),
    );
    expect(approved.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(await notesOf(before, approved)).toEqual(['unresolved_attempt_other_revisions']);
    expect(after.calls['create_refund_draft']).toBe(0);
    // The new key was given back (nothing ran under it); the earlier record is as it was.
    expect((await before.stores.idempotencyStore.get('appr-v2'))?.state).toBe('released');
    expect((await before.stores.idempotencyStore.get('appr-v1'))?.state).toBe('unknown');
  });

  it('a write of the old revisions still running (a rolling deploy) is in progress elsewhere, not a conflict', async () => {
    const before = createTestHost();
    const digest = (await preview(before)).approval_request?.request_sha256 as string;
    const original = before.impl.create_refund_draft;
    let finish: () => void = () => undefined;
    before.impl.create_refund_draft = (input) =>
      new Promise((resolve) => {
        finish = () => resolve(original(input));
      });
    const running = before.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(before, digest, 'appr-v1')] });
    while ((await before.stores.idempotencyStore.get('appr-v1'))?.state !== 'started') await new Promise((resolve) => setTimeout(resolve, 1));

    const after = afterDeploy(before);
    const asked = await preview(after);
    expect(asked.sealed.model_result.error?.code).toBe('OUTCOME_UNKNOWN');
    expect(asked.approval_request).toBeNull();
    expect(await notesOf(before, asked)).toEqual(['unresolved_attempt_other_revisions', 'in_progress_elsewhere']);

    finish();
    expect(only(await running).gate).toBe('sealed');
    // Finished: the new revisions' write needs its own approval, as any new write does.
    expect((await preview(after)).sealed.model_result.error?.code).toBe('APPROVAL_REQUIRED');
  });

  it('writes once the earlier attempt is resolved (reconciled by its own status query)', async () => {
    const { before, digest } = await unresolvedBeforeDeploy();
    // The retry under the first approval, before the deploy, queries status and finds the receipt.
    const reconciled = only(
      await before.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(before, digest, 'appr-v1')] }),
    );
    expect(reconciled.sealed.model_result.execution.delivery).toBe('receipt_reconciled');

    const after = afterDeploy(before);
    const newDigest = await digestAfterDeploy(after);
    const approved = only(
      await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(after, newDigest, 'appr-v2')] }),
    );
    expect(approved.gate).toBe('sealed');
    expect(after.calls['create_refund_draft']).toBe(1);
  });

  it('a store without intent lookups keeps the request-based protection only (note intent_lookup_unsupported)', async () => {
    const host = createTestHost();
    const plain = withIntentLookup(host, () => {
      throw new StoreInputError('request_sha256', 'is required');
    });
    const digest = (await preview(plain)).approval_request?.request_sha256 as string;
    const approved = only(
      await plain.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(plain, digest, 'appr-1')] }),
    );
    expect(approved.gate).toBe('sealed');
    expect(await notesOf(host, approved)).toEqual(['intent_lookup_unsupported']);
  });

  it('an intent lookup that fails stops an approved write (TIMEOUT_BEFORE_EXECUTE, nothing run, key given back); a preview asks for approval', async () => {
    const host = createTestHost();
    const store = host.stores.idempotencyStore;
    const flaky = withIntentLookup(host, () => {
      throw new Error('connection reset');
    });
    const asked = await preview(flaky);
    expect(asked.sealed.model_result.error?.code).toBe('APPROVAL_REQUIRED');
    expect(await notesOf(host, asked)).toEqual(['intent_lookup_failed']);
    const digest = asked.approval_request?.request_sha256 as string;
    const approved = only(
      await flaky.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(flaky, digest, 'appr-1')] }),
    );
    expect(approved.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(approved.sealed.model_result.error?.retry_after_ms).toBe(1_000);
    expect(await notesOf(host, approved)).toEqual(['intent_lookup_failed']);
    expect(flaky.calls['create_refund_draft']).toBe(0);
    expect((await store.get('appr-1'))?.state).toBe('released');
  });

  it('a full intent list without a conflict in it may have left one out: the write does not start', async () => {
    const host = createTestHost();
    const store = host.stores.idempotencyStore;
    const digest = (await preview(host)).approval_request?.request_sha256 as string;
    // Four records of this intent and request under the call's own key: none is a conflict.
    const listing = withIntentLookup(host, async () => {
      const own = await store.get('appr-1');
      return [own, own, own, own];
    });
    const approved = only(
      await listing.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(listing, digest, 'appr-1')] }),
    );
    expect(approved.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(await notesOf(host, approved)).toEqual(['intent_attempts_beyond_lookup']);
    expect(listing.calls['create_refund_draft']).toBe(0);
  });

  it('stores the intent digest with every claim: the same for an approved write and the intent key', async () => {
    const host = createTestHost();
    const digest = (await preview(host)).approval_request?.request_sha256 as string;
    await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(host, digest, 'appr-1')] });
    const record = await host.stores.idempotencyStore.get('appr-1');
    const intent = host.digester.digestTagged('toolseal.dispatcher.intent_key.v1', {
      tenant_id: CEDAR_DRAFTER.tenant_id,
      subject_id: CEDAR_DRAFTER.subject_id,
      tool_name: 'create_refund_draft',
      arguments: BASELINE_REFUND,
    });
    expect(record?.intent_sha256).toBe(intent);
  });
});

async function digestAfterDeploy(after: TestHost, principal: PrincipalContext = CEDAR_DRAFTER): Promise<string> {
  // The preview is refused while the earlier attempt is unresolved: the digest as the dispatcher
  // computes it, over the bumped contract's revisions.
  const contract = BUMPED.get('create_refund_draft')?.contract;
  if (contract === undefined) throw new Error('no refund tool');
  return after.digester.requestDigest({
    tenant_id: principal.tenant_id,
    subject_id: principal.subject_id,
    tool_name: contract.tool_name,
    arguments: BASELINE_REFUND,
    input_revision: contract.input_revision,
    output_revision: contract.output_revision,
    effect_revision: contract.effect_revision,
  });
}

/** The refund tool switched to approval 'none': a new dispatcher over `before`'s stores and clock. */
function switchedToNoApproval(before: TestHost, stores: TestHost['stores'] = before.stores): TestHost {
  return createTestHost({
    clock: before.clock,
    options: { stores },
    tools: (tools) => tools.map((tool) => (tool.name === 'create_refund_draft' ? { ...tool, approval: 'none' as const } : tool)),
  });
}

/** Before the switch: an approved refund that completed under the approval's key. */
async function completedUnderApproval(): Promise<TestHost> {
  const before = createTestHost();
  const digest = (await preview(before)).approval_request?.request_sha256 as string;
  const first = only(
    await before.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(before, digest, 'appr-1')] }),
  );
  expect(first.sealed.model_result.status).toBe('succeeded');
  expect(before.drafts.size).toBe(1);
  return before;
}

/** A host over `before`'s stores whose `findCompleted` answers with `answer`. */
function withCompletedLookup(before: TestHost, answer: () => Promise<unknown[]> | unknown[]): TestHost {
  const store = before.stores.idempotencyStore;
  const wrapped: IdempotencyStore = Object.assign(Object.create(store) as IdempotencyStore, { findCompleted: async () => answer() });
  return switchedToNoApproval(before, { ...before.stores, idempotencyStore: wrapped });
}

describe("a write tool switched from approval 'required' to 'none' (review finding: its completed intent ran again)", () => {
  it('the same intent, completed under an approval, does not write again under its intent key (STATUS_CONFLICT, key given back)', async () => {
    const before = await completedUnderApproval();
    const after = switchedToNoApproval(before);
    const retried = only(await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retried.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(retried.sealed.model_result.error?.recovery).toBe(ERROR_CATALOG.STATUS_CONFLICT.recovery);
    expect(retried.sealed.model_result.execution.outcome).toBe('unknown');
    expect(await notesOf(before, retried)).toEqual(['completed_attempt_other_key']);
    // The downstream service saw one write; the intent key was given back, nothing ran under it.
    expect([before.drafts.size, after.drafts.size]).toEqual([1, 0]);
    const entry = (await before.stores.auditLog.query({ kind: 'sealed_call', call_id: retried.call_id }, { limit: 1 })).entries[0];
    const intentKey = entry?.idempotency_key as string;
    expect(intentKey).toMatch(/^intent-[0-9a-f]{64}$/);
    expect((await before.stores.idempotencyStore.get(intentKey))?.state).toBe('released');
    // And again: the same answer, still one write.
    const again = only(await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(again.sealed.model_result.error?.code).toBe('STATUS_CONFLICT');
    expect(after.drafts.size).toBe(0);
  });

  it('another intent (another subject) writes as before; so does the same intent once retention deleted the completed record', async () => {
    const before = await completedUnderApproval();
    const after = switchedToNoApproval(before);
    // Another subject's intent with the same arguments.
    const other = only(await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_OTHER }));
    expect(other.sealed.model_result.status).toBe('succeeded');
    expect(after.drafts.size).toBe(1);
    before.clock.advance(60_000);
    expect(await before.stores.idempotencyStore.purgeExpired({ older_than_ms: 1_000 })).toBeGreaterThan(0);
    const afterRetention = only(await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(afterRetention.sealed.model_result.status).toBe('succeeded');
    expect(after.drafts.size).toBe(2);
  });

  it('a store without findCompleted loses that protection only: the write runs (the README says so)', async () => {
    const before = await completedUnderApproval();
    const store = before.stores.idempotencyStore;
    const withoutLookup: IdempotencyStore = Object.assign(Object.create(store) as IdempotencyStore, { findCompleted: undefined });
    const after = switchedToNoApproval(before, { ...before.stores, idempotencyStore: withoutLookup });
    const retried = only(await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retried.sealed.model_result.status).toBe('succeeded');
    expect(after.drafts.size).toBe(1);
  });

  it('a lookup that fails, or a full list without a completed record of this intent in it, starts nothing (TIMEOUT_BEFORE_EXECUTE)', async () => {
    const before = await completedUnderApproval();
    const failing = withCompletedLookup(before, () => Promise.reject(new Error('connection reset')));
    const failed = only(await failing.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(failed.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(await notesOf(before, failed)).toEqual(['completed_lookup_failed']);
    const notAList = withCompletedLookup(before, () => ({ length: 0 }) as unknown as unknown[]);
    expect(only(await notAList.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).sealed.model_result.error?.code).toBe(
      'TIMEOUT_BEFORE_EXECUTE',
    );
    // Four records that are not this intent's completed ones elsewhere (another digest, another
    // state, not a record, the call's own key): the list is full, so it may have left one out.
    const intent = (await failing.stores.idempotencyStore.get('appr-1'))?.intent_sha256 as string;
    const junk: unknown[] = [
      { key: 'k1', state: 'completed', intent_sha256: 'f'.repeat(64) },
      { key: 'k2', state: 'started', intent_sha256: intent },
      null,
      { key: `intent-${intent}`, state: 'completed', intent_sha256: intent },
    ];
    const full = withCompletedLookup(before, () => junk);
    const beyond = only(await full.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(beyond.sealed.model_result.error?.code).toBe('TIMEOUT_BEFORE_EXECUTE');
    expect(await notesOf(before, beyond)).toEqual(['completed_attempts_beyond_lookup']);
    // Three of them (not full): nothing completed elsewhere, the write runs.
    const partial = withCompletedLookup(before, () => junk.slice(0, 3));
    expect(only(await partial.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context)).sealed.model_result.status).toBe('succeeded');
    expect([failing, notAList, full, partial].map((host) => host.drafts.size)).toEqual([0, 0, 0, 1]);
  });

  it('a completed record of this intent under a malformed key counts too (fail closed: the key is not used)', async () => {
    const before = await completedUnderApproval();
    const intent = (await before.stores.idempotencyStore.get('appr-1'))?.intent_sha256 as string;
    for (const key of ['bad\u0000key', 7, undefined]) {
      const odd = withCompletedLookup(before, () => [{ key, state: 'completed', intent_sha256: intent }]);
      const retried = only(await odd.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
      expect(retried.sealed.model_result.error?.code, String(key)).toBe('STATUS_CONFLICT');
      expect(odd.drafts.size).toBe(0);
    }
  });

  it('a store that refuses the lookup input answers as every such refusal: TOOL_ERROR, nothing run, key given back', async () => {
    const before = await completedUnderApproval();
    const refusing = withCompletedLookup(before, () => Promise.reject(new StoreInputError('intent_sha256', 'unknown field')));
    const retried = only(await refusing.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(retried.sealed.model_result.error?.code).toBe('TOOL_ERROR');
    expect(await notesOf(before, retried)).toEqual(['idempotency_store_input_rejected']);
    expect(refusing.drafts.size).toBe(0);
    const entry = (await before.stores.auditLog.query({ kind: 'sealed_call', call_id: retried.call_id }, { limit: 1 })).entries[0];
    expect((await before.stores.idempotencyStore.get(entry?.idempotency_key as string))?.state).toBe('released');
  });

  it('a findCompleted that is present but not a function is refused when the dispatcher is created', () => {
    const before = createTestHost();
    const store = before.stores.idempotencyStore;
    const broken: IdempotencyStore = Object.assign(Object.create(store) as IdempotencyStore, { findCompleted: 'yes' });
    expect(() => switchedToNoApproval(before, { ...before.stores, idempotencyStore: broken })).toThrow(/findCompleted must be a function when present/);
  });

  it("an approved write never asks findCompleted: from 'none' to 'required', a person consents to another write", async () => {
    const before = switchedToNoApproval(createTestHost());
    const first = only(await before.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], context));
    expect(first.sealed.model_result.status).toBe('succeeded');
    let asked = 0;
    const store = before.stores.idempotencyStore;
    const counting: IdempotencyStore = Object.assign(Object.create(store) as IdempotencyStore, {
      findCompleted: async (input: FindCompletedInput) => {
        asked += 1;
        return store.findCompleted?.(input) ?? [];
      },
    });
    const after = createTestHost({ clock: before.clock, options: { stores: { ...before.stores, idempotencyStore: counting } } });
    const digest = (await preview(after)).approval_request?.request_sha256 as string;
    const approved = only(
      await after.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { ...context, approvals: [approval(after, digest, 'appr-2')] }),
    );
    expect(approved.sealed.model_result.status).toBe('succeeded');
    expect(asked).toBe(0);
    expect([before.drafts.size, after.drafts.size]).toEqual([1, 1]);
  });
});
