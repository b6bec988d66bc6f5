import type { ProtectedAudit, ToolContract } from '@toolseal/contracts';
import { canonicalize, canonicalString } from '@toolseal/digests';
import { CONTRACT_KEY_LIST } from './contract-keys.js';
import { tryCanonicalize } from './canonical-model-result.js';

/** A registry contract as first read: its members (all strings) and their RFC 8785 text. */
interface ContractSnapshot {
  readonly members: Readonly<Record<(typeof CONTRACT_KEY_LIST)[number], string>>;
  readonly text: string;
}

// Per frozen registry contract, its members as first read and their text: the same in every
// package of the tool (a handful of long-lived keys, so the weak map costs the collector nothing).
// Kept as read, so a contract whose member is an accessor cannot answer one value for the
// comparison and another for the text.
const contractSnapshots = new WeakMap<object, ContractSnapshot | null>();

/** The snapshot of `contract`, or `null` when a member is not a string or has no canonical text (no known shape then). */
function snapshotOf(contract: Readonly<ToolContract>): ContractSnapshot | null {
  let snapshot = contractSnapshots.get(contract);
  if (snapshot === undefined) {
    const members: Record<string, string> = {};
    let strings = true;
    for (const key of CONTRACT_KEY_LIST) {
      const value: unknown = contract[key];
      if (typeof value !== 'string') {
        strings = false;
        break;
      }
      members[key] = value;
    }
    // A lone surrogate has no canonical text: no known shape then either (the generic path throws).
    const text = strings ? tryCanonicalize(members) : null;
    snapshot = text === null ? null : { members: Object.freeze(members) as ContractSnapshot['members'], text };
    if (Object.isFrozen(contract)) contractSnapshots.set(contract, snapshot);
  }
  return snapshot;
}

/**
 * The copy holds exactly the snapshot's members, with the same values (strings, as `ToolContract`
 * says: a registry that is not `createToolRegistry`'s could hand over another value, which the known
 * shape's depth and the kept contract text would not describe).
 */
function sameContract(copy: ToolContract, snapshot: ContractSnapshot): boolean {
  if (Object.keys(copy).length !== CONTRACT_KEY_LIST.length) return false;
  for (const key of CONTRACT_KEY_LIST) if (copy[key] !== snapshot.members[key]) return false;
  return true;
}

const nullableString = (value: string | null): string | undefined => (value === null ? 'null' : canonicalString(value));

/**
 * `canonicalize(audit)` for a protected audit projection `sealResult` built, written directly: RFC
 * 8785 orders members by their UTF-16 code units (`binding` < `downstream` < `principal_ref` <
 * `provider_context` < `redactions` < `schema_version` < `tool_contract`, and likewise inside each
 * member), the strings are ids, revisions and hex digests that mostly need no escaping, and the
 * contract's text is the same in every package of the tool: `registryContract` is the registry's
 * (frozen) contract the projection's `tool_contract` copies, whose text is kept. Any member without
 * the type `ProtectedAudit` gives it, or a string `canonicalize` would refuse, takes the generic
 * path (which throws as it would).
 */
export function composeCanonicalProtectedAudit(audit: ProtectedAudit, registryContract: Readonly<ToolContract>): string {
  return composeKnownShape(audit, registryContract) ?? canonicalize(audit);
}

/**
 * The text `composeCanonicalProtectedAudit` writes directly, or `undefined` where it takes the
 * generic path: a member without the type `ProtectedAudit` gives it (a receipt that is not a
 * string, for one), or a string `canonicalize` would refuse. Its nesting depth is exactly 2, or 3
 * with redactions (objects of two strings, as `sealResult` copies them).
 */
export function composeKnownShape(audit: ProtectedAudit, registryContract: Readonly<ToolContract>): string | undefined {
  const { binding, downstream, provider_context: context } = audit;
  const members = [
    canonicalString(binding.call_binding_sha256),
    canonicalString(binding.request_sha256),
    canonicalString(binding.result_sha256),
    nullableString(downstream.idempotency_key),
    canonicalString(downstream.operation_id),
    nullableString(downstream.receipt),
    nullableString(downstream.status_ref),
    canonicalString(audit.principal_ref),
    canonicalString(context.adapter_revision),
    canonicalString(context.api_family),
    canonicalString(context.call_id),
    canonicalString(context.provider),
    canonicalString(context.response_id),
    canonicalString(audit.schema_version),
  ];
  const contract = snapshotOf(registryContract);
  if (members.includes(undefined) || !Array.isArray(audit.redactions) || contract === null || !sameContract(audit.tool_contract, contract)) {
    return undefined;
  }
  const [callBinding, request, result, idempotencyKey, operationId, receipt, statusRef, principalRef, adapterRevision, apiFamily, callId, provider, responseId, schemaVersion] =
    members as string[];
  const redactions = audit.redactions.length === 0 ? '[]' : canonicalize(audit.redactions);
  return (
    `{"binding":{"call_binding_sha256":${callBinding},"request_sha256":${request},"result_sha256":${result}},` +
    `"downstream":{"idempotency_key":${idempotencyKey},"operation_id":${operationId},"receipt":${receipt},"status_ref":${statusRef}},` +
    `"principal_ref":${principalRef},` +
    `"provider_context":{"adapter_revision":${adapterRevision},"api_family":${apiFamily},"call_id":${callId},"provider":${provider},"response_id":${responseId}},` +
    `"redactions":${redactions},"schema_version":${schemaVersion},"tool_contract":${contract.text}}`
  );
}

/** `composeCanonicalProtectedAudit`, or `null` where it would throw (a lone surrogate). */
export function tryComposeCanonicalProtectedAudit(audit: ProtectedAudit, registryContract: Readonly<ToolContract>): string | null {
  try {
    return composeCanonicalProtectedAudit(audit, registryContract);
  } catch {
    return null;
  }
}

/** `composeKnownShape`, or `undefined` where it would throw (redactions `canonicalize` refuses). */
export function tryComposeKnownShape(audit: ProtectedAudit, registryContract: Readonly<ToolContract>): string | undefined {
  try {
    return composeKnownShape(audit, registryContract);
  } catch {
    return undefined;
  }
}
