import { isWellFormedIdentifier } from '@toolseal/adapter-core';
import type { JsonObject, Sha256Hex } from '@toolseal/contracts';
import { constantTimeEqual, isSha256Hex } from '@toolseal/digests';

/** The prefix of the idempotency keys the dispatcher makes for writes without approval. */
export const INTENT_KEY_PREFIX = 'intent-';

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
 * The approval for this tool and this exact request digest that expires last, expired or not, or
 * `null`: the key the latest approved attempt of the request ran (or would have run) under. Used
 * when no approval is live, to answer from that attempt (replay, status query) instead of asking
 * for a new write.
 */
export function latestApprovalFor(approvals: readonly Approval[], toolName: string, requestSha256: Sha256Hex): Approval | null {
  let latest: Approval | null = null;
  for (const approval of approvals) {
    if (approval.tool_name !== toolName || !constantTimeEqual(approval.request_sha256, requestSha256)) continue;
    if (latest === null || approval.expires_at > latest.expires_at) latest = approval;
  }
  return latest;
}

/** The approvals of a turn that has none: one shared frozen list, nothing allocated per turn. */
const NO_APPROVALS: readonly Approval[] = Object.freeze([]);

/**
 * Checks the host's approvals once per turn and returns a frozen list of private, frozen, plain
 * copies, which are all the dispatcher uses afterwards. They are read as calls are (`checkCalls`):
 * the list's length and each item once, then every field of an approval exactly once, in the order
 * of the literal below (a getter or a proxy's `get` is invoked once and its first answer is the one
 * checked, matched, audited and written under; an inherited field is read like an own one and
 * copied as an own data property). So a getter cannot pass the check with one key or approver and
 * answer another later, and the host (or a handler or trusted check holding the host's objects)
 * cannot change, add or remove an approval while the turn runs. They are trusted host input, so a
 * malformed one is a host bug: it throws a `TypeError` (`dispatch` rejects before any call runs)
 * rather than being ignored; so does a getter or proxy that throws.
 */
export function checkApprovals(value: unknown): readonly Approval[] {
  if (value === undefined) return NO_APPROVALS;
  if (!Array.isArray(value)) throw new TypeError('dispatch: context.approvals must be an array');
  const count = value.length;
  if (count === 0) return NO_APPROVALS;
  const copies: Approval[] = [];
  for (let index = 0; index < count; index += 1) {
    const where = `dispatch: context.approvals[${index}]`;
    const approval: unknown = value[index];
    if (typeof approval !== 'object' || approval === null) throw new TypeError(`${where} must be an object`);
    const record = approval as Record<string, unknown>;
    const copy: Approval = Object.freeze({
      request_sha256: approvalDigest(where, record['request_sha256']),
      tool_name: approvalToolName(where, record['tool_name']),
      // Both are written to the stores and the audit log: an id they would refuse must never let a
      // write start.
      idempotency_key: approvalKey(where, record['idempotency_key']),
      approved_by: approvalIdentifier(where, 'approved_by', record['approved_by']),
      expires_at: approvalExpiry(where, record['expires_at']),
    });
    copies.push(copy);
  }
  return Object.freeze(copies);
}

function approvalDigest(where: string, value: unknown): Sha256Hex {
  if (!isSha256Hex(value)) throw new TypeError(`${where}.request_sha256 must be 64 lowercase hex characters`);
  return value;
}

function approvalToolName(where: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`${where}.tool_name must be a tool name`);
  return value;
}

function approvalIdentifier(where: string, field: 'idempotency_key' | 'approved_by', value: unknown): string {
  if (!isWellFormedIdentifier(value, 256)) {
    throw new TypeError(`${where}.${field} must be 1 to 256 characters without control characters`);
  }
  return value;
}

/**
 * Keys starting with `intent-` are the dispatcher's own, for writes without approval
 * (`intent-<digest>`, a digest anyone can compute from the call): an approval key there could
 * claim another principal's intent first and hold its write as a conflict.
 */
function approvalKey(where: string, value: unknown): string {
  const key = approvalIdentifier(where, 'idempotency_key', value);
  if (key.startsWith(INTENT_KEY_PREFIX)) {
    throw new TypeError(`${where}.idempotency_key must not start with "${INTENT_KEY_PREFIX}" (the dispatcher's keys for writes without approval)`);
  }
  return key;
}

function approvalExpiry(where: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`${where}.expires_at must be epoch milliseconds`);
  return value;
}

/** The approval fields the protected audit keeps. */
export function approvalAuditRecord(approval: Approval): JsonObject {
  return {
    approved_by: approval.approved_by,
    expires_at: approval.expires_at,
    request_sha256: approval.request_sha256,
  };
}
