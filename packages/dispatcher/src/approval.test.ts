import { describe, expect, it } from 'vitest';
import { checkApprovals, matchApproval, type Approval } from './approval.js';

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

  it.each([
    ['not an array', {}],
    ['a short digest', [approval({ request_sha256: 'abc' })]],
    ['an uppercase digest', [approval({ request_sha256: 'A'.repeat(64) })]],
    ['an empty key', [approval({ idempotency_key: '' })]],
    ['a key over 256 characters', [approval({ idempotency_key: 'k'.repeat(257) })]],
    ['a key with NUL (the stores refuse it)', [approval({ idempotency_key: 'key-\u0000' })]],
    ['a key with a lone surrogate', [approval({ idempotency_key: 'key-\ud800' })]],
    ['no approver', [approval({ approved_by: '' })]],
    ['an approver with a lone surrogate (the audit body could not be canonicalized)', [approval({ approved_by: 'lead\udc00' })]],
    ['an approver over 256 characters', [approval({ approved_by: 'l'.repeat(257) })]],
    ['an expiry that is not a number', [approval({ expires_at: Number.NaN })]],
  ])('throws a TypeError for %s', (_name, value) => {
    expect(() => checkApprovals(value)).toThrow(TypeError);
  });
});
