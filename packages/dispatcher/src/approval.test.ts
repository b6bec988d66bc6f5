import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, only, toolCall, type TestHost } from './__fixtures__/test-host.js';
import { checkApprovals, matchApproval, type Approval } from './approval.js';
import type { DispatcherTool } from './dispatcher-tool.js';

const DIGEST_A = 'a'.repeat(64);
const DIGEST_B = 'b'.repeat(64);

function approval(overrides: Partial<Approval> = {}): Approval {
  return { request_sha256: DIGEST_A, tool_name: 'send_email', idempotency_key: 'key-1', approved_by: 'lead', expires_at: 1_000, ...overrides };
}

describe('matchApproval', () => {
  it('approves only the exact request digest, before it expires', () => {
    const given = approval();
    expect(matchApproval([given], 'send_email', DIGEST_A, 999)).toEqual({ kind: 'approved', approval: given });
    expect(matchApproval([given], 'send_email', DIGEST_A, 1_000)).toEqual({ kind: 'invalid' });
    expect(matchApproval([given], 'send_email', DIGEST_B, 0)).toEqual({ kind: 'invalid' });
  });

  it('asks for an approval when none names the tool', () => {
    expect(matchApproval([], 'send_email', DIGEST_A, 0)).toEqual({ kind: 'required' });
    expect(matchApproval([approval({ tool_name: 'create_refund_draft' })], 'send_email', DIGEST_A, 0)).toEqual({ kind: 'required' });
  });

  it('finds the matching approval among several for the same tool', () => {
    const match = approval({ request_sha256: DIGEST_B, idempotency_key: 'key-2' });
    expect(matchApproval([approval(), match], 'send_email', DIGEST_B, 0)).toEqual({ kind: 'approved', approval: match });
  });

  it('never matches an approval whose tool differs, even with the same digest', () => {
    expect(matchApproval([approval({ tool_name: 'get_order' })], 'send_email', DIGEST_A, 0)).toEqual({ kind: 'required' });
  });
});

describe('checkApprovals', () => {
  it('accepts none or well-formed approvals', () => {
    expect(checkApprovals(undefined)).toEqual([]);
    expect(checkApprovals([approval()])).toHaveLength(1);
  });

  it('answers no approvals with one shared frozen empty list (nothing is allocated per turn)', () => {
    const none = checkApprovals(undefined);
    expect(Object.isFrozen(none)).toBe(true);
    expect(checkApprovals([])).toBe(none);
    expect(checkApprovals(undefined)).toBe(none);
  });

  it('the review: reads every field of every approval exactly once, into a frozen list of frozen plain copies', () => {
    const reads: Record<string, number> = {};
    const first = approval({ idempotency_key: 'checked-key', approved_by: 'alice' });
    const later = approval({ idempotency_key: 'other-key', approved_by: 'mallory', request_sha256: DIGEST_B, expires_at: 9_999 });
    const shifty = {} as Approval;
    for (const field of Object.keys(first) as (keyof Approval)[]) {
      Object.defineProperty(shifty, field, {
        enumerable: true,
        get: () => {
          reads[field] = (reads[field] ?? 0) + 1;
          return (reads[field] === 1 ? first : later)[field];
        },
      });
    }
    const given = [shifty];
    const copies = checkApprovals(given);
    expect(reads).toEqual({ request_sha256: 1, tool_name: 1, idempotency_key: 1, approved_by: 1, expires_at: 1 });
    expect(copies).toEqual([first]);
    expect(copies).not.toBe(given);
    expect(Object.isFrozen(copies)).toBe(true);
    const [copy] = copies;
    expect(copy).not.toBe(shifty);
    expect(Object.isFrozen(copy)).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    // Later reads of the host's object answer otherwise; the copy does not follow.
    expect(shifty.idempotency_key).toBe('other-key');
    expect(copy?.idempotency_key).toBe('checked-key');
    expect(matchApproval(copies, 'send_email', DIGEST_A, 0)).toEqual({ kind: 'approved', approval: first });
  });

  it("reads the host's list once (length and each item), and its later changes reach no copy", () => {
    let itemReads = 0;
    const good = approval();
    const given: Approval[] = [];
    Object.defineProperty(given, 0, {
      enumerable: true,
      configurable: true,
      get: () => (++itemReads === 1 ? good : approval({ idempotency_key: 'other-key' })),
    });
    const copies = checkApprovals(given);
    expect(itemReads).toBe(1);
    expect(copies).toEqual([good]);
    good.idempotency_key = 'changed-after';
    given.push(approval({ request_sha256: DIGEST_B }));
    expect(copies).toEqual([approval()]);
  });

  it('reads fields as a call\'s are read: an inherited field counts and is copied as an own data property', () => {
    const inherited = Object.create(approval({ approved_by: 'inherited-lead' })) as Approval;
    const [copy] = checkApprovals([inherited]);
    expect(Object.hasOwn(copy as object, 'approved_by')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(copy, 'approved_by')).toMatchObject({ value: 'inherited-lead', writable: false });
  });

  it('reads a proxy\'s fields once each', () => {
    const gets: string[] = [];
    const proxy = new Proxy(approval(), {
      get: (target, key, receiver) => {
        gets.push(String(key));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const copies = checkApprovals([proxy]);
    const read = [...gets].sort();
    expect(read).toEqual(['approved_by', 'expires_at', 'idempotency_key', 'request_sha256', 'tool_name']);
    expect(copies).toEqual([approval()]);
  });

  it.each([
    ['not an array', {}],
    ['a short digest', [approval({ request_sha256: 'abc' })]],
    ['an uppercase digest', [approval({ request_sha256: 'A'.repeat(64) })]],
    ['an empty key', [approval({ idempotency_key: '' })]],
    ['a key over 256 characters', [approval({ idempotency_key: 'k'.repeat(257) })]],
    ['a key with NUL (the stores refuse it)', [approval({ idempotency_key: 'key-\u0000' })]],
    ['a key with a lone surrogate', [approval({ idempotency_key: 'key-\ud800' })]],
    ['a key in the dispatcher\'s own namespace (it could hold another principal\'s intent key)', [approval({ idempotency_key: `intent-${DIGEST_A}` })]],
    ['a bare intent- prefix', [approval({ idempotency_key: 'intent-' })]],
    ['no approver', [approval({ approved_by: '' })]],
    ['an approver with a lone surrogate (the audit body could not be canonicalized)', [approval({ approved_by: 'lead\udc00' })]],
    ['an approver over 256 characters', [approval({ approved_by: 'l'.repeat(257) })]],
    ['an expiry that is not a number', [approval({ expires_at: Number.NaN })]],
  ])('throws a TypeError for %s', (_name, value) => {
    expect(() => checkApprovals(value)).toThrow(TypeError);
  });
});

/** The refund write's request digest for the baseline arguments, from the APPROVAL_REQUIRED preview. */
async function previewDigest(host: TestHost): Promise<string> {
  const preview = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_DRAFTER }));
  expect(preview.sealed.model_result.error?.code).toBe('APPROVAL_REQUIRED');
  const digest = preview.approval_request?.request_sha256;
  if (digest === undefined) throw new Error('no approval preview');
  return digest;
}

/** A test host whose refund write runs `onCheck` in a trusted check (before the approval gate). */
function hostWithRefundCheck(onCheck: () => void): TestHost {
  return createTestHost({
    tools: (tools) =>
      tools.map(
        (tool): DispatcherTool =>
          tool.name === 'create_refund_draft'
            ? {
                ...tool,
                check: () => {
                  onCheck();
                  return { ok: true };
                },
              }
            : tool,
      ),
  });
}

/** What the audit log and the stores say about the write of `callId`. */
async function writeRecord(host: TestHost, callId: string): Promise<{ key: unknown; approval: unknown; drafts: string[] }> {
  const entry = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: callId }, { limit: 1 })).entries[0];
  return { key: entry?.idempotency_key, approval: entry?.body['approval'], drafts: [...host.drafts.keys()] };
}

/** A valid approval of the baseline refund draft, as the host checked it: key `checked-key`, approver `alice`. */
function checkedApproval(host: TestHost, digest: Approval['request_sha256']): Approval {
  return {
    request_sha256: digest,
    tool_name: 'create_refund_draft',
    idempotency_key: 'checked-key',
    approved_by: 'alice',
    expires_at: host.clock.now() + 600_000,
  };
}

describe('approvals are read once per turn (the review)', () => {
  it('an approval whose getters answer differently per read: the write runs under the key, and the audit records the approver, that were checked', async () => {
    const host = createTestHost();
    const digest = await previewDigest(host);
    const checked = checkedApproval(host, digest);
    const later: Approval = { ...checked, idempotency_key: 'other-key', approved_by: 'mallory' };
    const reads: Record<string, number> = {};
    const shifty = {} as Approval;
    for (const field of Object.keys(checked) as (keyof Approval)[]) {
      Object.defineProperty(shifty, field, {
        enumerable: true,
        get: () => {
          reads[field] = (reads[field] ?? 0) + 1;
          return (reads[field] === 1 ? checked : later)[field];
        },
      });
    }
    const result = only(
      await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_DRAFTER, approvals: [shifty] }),
    );
    expect(reads).toEqual({ request_sha256: 1, tool_name: 1, idempotency_key: 1, approved_by: 1, expires_at: 1 });
    expect(result.gate).toBe('sealed');
    expect(result.sealed.protected_audit.downstream.idempotency_key).toBe('checked-key');
    expect(await writeRecord(host, result.call_id)).toEqual({
      key: 'checked-key',
      approval: { approved_by: 'alice', expires_at: checked.expires_at, request_sha256: digest },
      drafts: ['checked-key'],
    });
    expect(await host.stores.idempotencyStore.get('other-key')).toBeUndefined();
  });

  it("changing the host's approval objects from a trusted check changes neither the key nor the audited approver", async () => {
    const approvals: Approval[] = [];
    const host = hostWithRefundCheck(() => {
      for (const given of approvals) {
        given.idempotency_key = 'other-key';
        given.approved_by = 'mallory';
      }
    });
    const digest = await previewDigest(host);
    approvals.push(checkedApproval(host, digest));
    const expiresAt = approvals[0]?.expires_at;
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_DRAFTER, approvals }));
    expect(approvals[0]?.approved_by).toBe('mallory');
    expect(result.gate).toBe('sealed');
    expect(await writeRecord(host, result.call_id)).toEqual({
      key: 'checked-key',
      approval: { approved_by: 'alice', expires_at: expiresAt, request_sha256: digest },
      drafts: ['checked-key'],
    });
  });

  it("an approval added to the host's list from a trusted check after dispatch started authorizes nothing", async () => {
    const approvals: Approval[] = [];
    let late: Approval | null = null;
    const host = hostWithRefundCheck(() => {
      if (late !== null) approvals.push(late);
    });
    const digest = await previewDigest(host);
    late = { request_sha256: digest, tool_name: 'create_refund_draft', idempotency_key: 'late-key', approved_by: 'mallory', expires_at: host.clock.now() + 600_000 };
    const result = only(await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_DRAFTER, approvals }));
    expect(approvals).toHaveLength(1);
    expect(result.gate).toBe('approval');
    expect(result.sealed.model_result.error?.code).toBe('APPROVAL_REQUIRED');
    expect(host.calls['create_refund_draft']).toBe(0);
  });

  it("replacing the host's approvals from another call's handler in the same turn changes nothing for the write", async () => {
    const host = createTestHost();
    const digest = await previewDigest(host);
    const checked = checkedApproval(host, digest);
    const approvals: Approval[] = [{ ...checked }];
    const original = host.impl.get_order;
    host.impl.get_order = (input) => {
      approvals.splice(0, approvals.length, { ...checked, idempotency_key: 'other-key', approved_by: 'mallory' });
      return original(input);
    };
    const read = toolCall('get_order', { order_id: 'ORDER-C7' });
    const write = toolCall('create_refund_draft', BASELINE_REFUND);
    const turn = await host.dispatcher.dispatch([read, write], { principal: CEDAR_DRAFTER, approvals });
    expect(approvals[0]?.approved_by).toBe('mallory');
    expect(turn.results.map((result) => result.gate)).toEqual(['sealed', 'sealed']);
    expect(await writeRecord(host, write.call_id)).toEqual({
      key: 'checked-key',
      approval: { approved_by: 'alice', expires_at: checked.expires_at, request_sha256: digest },
      drafts: ['checked-key'],
    });
  });
});
