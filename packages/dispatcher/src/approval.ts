import { isWellFormedIdentifier } from '@toolseal/adapter-core';
import type { JsonObject, Sha256Hex } from '@toolseal/contracts';
import { constantTimeEqual, isSha256Hex } from '@toolseal/digests';

/**
 * A person's approval of one exact request, issued by the host (trusted) after showing the
 * `ApprovalRequest` preview. It authorizes only the request whose `request_sha256` it names: that
 * digest binds tenant, subject, tool, arguments and the input, output and effect revisions, so an
 * approval never carries over to other arguments, another principal or a changed contract.
 */
export interface Approval {
  /** The `request_sha256` of the previewed request. */
  request_sha256: Sha256Hex;
  /** The tool the approval is for. */
  tool_name: string;
  /**
   * The idempotency key the write runs under (1 to 256 characters, no control characters). Reusing an approval reuses
   * its key, so a repeated call replays the first result instead of writing twice.
   */
  idempotency_key: string;
  /** Who approved (for the protected audit). */
  approved_by: string;
  /** When the approval stops being valid, epoch ms of the dispatcher's clock. */
  expires_at: number;
}

/**
 * The bound preview a host shows a person before approving a write. Host-side only: it never
 * reaches `model_result`.
 */
export interface ApprovalRequest {
  /** What an `Approval` must name to authorize exactly this request. */
  request_sha256: Sha256Hex;
  /** The tool. */
  tool_name: string;
  /** The validated arguments (a frozen copy): exactly what would run. */
  arguments: JsonObject;
  /** The policy revision the request was judged under. */
  policy_revision: string;
}

/** What the approval gate decided. */
export type ApprovalMatch =
  | { kind: 'approved'; approval: Approval }
  /** No approval names this tool: ask a person (APPROVAL_REQUIRED). */
  | { kind: 'required' }
  /** An approval for this tool exists but binds another request, or has expired (APPROVAL_INVALID). */
  | { kind: 'invalid' };

/**
 * Finds the approval for one write. An approval authorizes only the request digest it names and
 * only until it expires; an approval for the same tool that names another digest (the model changed
 * the arguments after a person approved) never authorizes this request.
 */
export function matchApproval(
  approvals: readonly Approval[],
  toolName: string,
  requestSha256: Sha256Hex,
  now: number,
): ApprovalMatch {
  let sameTool = false;
  for (const approval of approvals) {
    if (approval.tool_name !== toolName) continue;
    // An expired approval for this very request, or one for another request of the same tool.
    sameTool = true;
    if (constantTimeEqual(approval.request_sha256, requestSha256) && now < approval.expires_at) {
      return { kind: 'approved', approval };
    }
  }
  return sameTool ? { kind: 'invalid' } : { kind: 'required' };
}


/**
 * Checks the host's approvals once per turn. They are trusted host input, so a malformed one is a
 * host bug: it throws a `TypeError` rather than being ignored.
 */
export function checkApprovals(value: unknown): readonly Approval[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError('dispatch: context.approvals must be an array');
  for (const [index, approval] of value.entries()) {
    const where = `dispatch: context.approvals[${index}]`;
    if (typeof approval !== 'object' || approval === null) throw new TypeError(`${where} must be an object`);
    const candidate = approval as Partial<Approval>;
    if (!isSha256Hex(candidate.request_sha256)) {
      throw new TypeError(`${where}.request_sha256 must be 64 lowercase hex characters`);
    }
    if (typeof candidate.tool_name !== 'string' || candidate.tool_name.length === 0) {
      throw new TypeError(`${where}.tool_name must be a tool name`);
    }
    // Both are written to the stores and the audit log: an id they would refuse must never let a
    // write start.
    if (!isWellFormedIdentifier(candidate.idempotency_key, 256)) {
      throw new TypeError(`${where}.idempotency_key must be 1 to 256 characters without control characters`);
    }
    if (!isWellFormedIdentifier(candidate.approved_by, 256)) {
      throw new TypeError(`${where}.approved_by must be 1 to 256 characters without control characters`);
    }
    if (typeof candidate.expires_at !== 'number' || !Number.isFinite(candidate.expires_at)) {
      throw new TypeError(`${where}.expires_at must be epoch milliseconds`);
    }
  }
  return value as Approval[];
}

/** The approval fields the protected audit keeps. */
export function approvalAuditRecord(approval: Approval): JsonObject {
  return {
    approved_by: approval.approved_by,
    expires_at: approval.expires_at,
    request_sha256: approval.request_sha256,
  };
}
