import type { CallContext, JsonObject, JsonValue, PrincipalContext, ToolContract } from '@toolseal/contracts';
import type { StoredResult } from '@toolseal/audit';
import type { Digester } from '@toolseal/digests';
import { parseUntrustedJson } from '@toolseal/guard';
import { CONTRACT_REVISIONS, verifyResult, type SealSubject, type ToolRegistry } from '@toolseal/result';
import { HANDLER_ERROR_CODES } from './read-handler-outcome.js';

/** What the replay needs to know about the current, fully authorized call. */
export interface StoredResultContext {
  registry: ToolRegistry;
  tool_name: string;
  principal: PrincipalContext;
  arguments: JsonValue;
  idempotency_key: string;
  digester: Digester;
  /** The host's clock: a stored result observed later than now (beyond the allowed skew) is refused. */
  now: () => Date;
}

/** A stored result ready to be sealed again for the current call. */
export interface ReplayableResult {
  /** What to seal: the stored data (checked by the output contract again) or the stored error. */
  subject: SealSubject;
  /** The operation that produced the stored result. */
  operation_id: string;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * Reads a completed idempotency record's sealed package and checks it before anything of it is
 * replayed: it must parse within the registry's package limits and verify (every digest
 * recomputed) as a package sealed for this principal, this tool contract, these exact arguments
 * and this idempotency key, under the operation and provider context it names, and the record's
 * `receipt` column must equal the package's `protected_audit.downstream.receipt` (the receipt
 * replayed), and it must be a package completing a record stores: delivered `fresh` or
 * `receipt_reconciled`, and either a result or one of a handler's refusals (`HANDLER_ERROR_CODES`).
 * With a keyed digester nobody without the key can forge the bound parts of a package (the
 * downstream receipt and status reference are not bound: a writer of the database can still
 * change both together in the package and the column). A record that fails any check is `null`: the
 * caller answers STATUS_CONFLICT (the recorded status cannot be trusted; a person must look).
 *
 * Never throws.
 */
export function readStoredResult(stored: StoredResult, context: StoredResultContext): ReplayableResult | null {
  try {
    const parsed = parseUntrustedJson(stored.sealed_json, context.registry.packageLimits);
    if (!parsed.ok || !isObject(parsed.value)) return null;
    const modelResult = parsed.value['model_result'];
    const protectedAudit = parsed.value['protected_audit'];
    if (!isObject(modelResult) || !isObject(protectedAudit)) return null;
    const providerContext = protectedAudit['provider_context'];
    const downstream = protectedAudit['downstream'];
    if (!isObject(providerContext) || !isObject(downstream)) return null;
    const provider = text(providerContext['provider']);
    const api_family = text(providerContext['api_family']);
    const response_id = text(providerContext['response_id']);
    const call_id = text(providerContext['call_id']);
    const adapter_revision = text(providerContext['adapter_revision']);
    const operation_id = text(downstream['operation_id']);
    if (
      provider === null ||
      api_family === null ||
      response_id === null ||
      call_id === null ||
      adapter_revision === null ||
      operation_id === null ||
      downstream['idempotency_key'] !== context.idempotency_key
    ) {
      return null;
    }
    const call: CallContext = {
      provider,
      api_family,
      response_id,
      call_id,
      adapter_revision,
      operation_id,
      idempotency_key: context.idempotency_key,
    };
    const verified = verifyResult(parsed.value, {
      registry: context.registry,
      tool_name: context.tool_name,
      principal: context.principal,
      call,
      arguments: context.arguments,
      digester: context.digester,
      now: context.now,
    });
    if (!verified.ok) return null;

    // The receipt comes from the verified package, never from the store's `receipt` column, which
    // nothing verifies: a record whose column says otherwise was changed after it was written and
    // is as unverifiable as any other mismatch. (The package's own receipt and status reference
    // are not bound by its digests either; only the audit chain protects what was appended.)
    const receipt = text(downstream['receipt']);
    if (receipt !== stored.receipt) return null;
    const statusRef = text(downstream['status_ref']);
    const execution = modelResult['execution'];
    const provenance = modelResult['provenance'];
    const error = modelResult['error'];
    if (!isObject(execution) || !isObject(provenance)) return null;
    // Only what completing a record stores: a result delivered `fresh` or `receipt_reconciled`,
    // and of errors only a handler's own refusal. Any other package of the call (a
    // TIMEOUT_BEFORE_EXECUTE the model saw, a replay) verifies just as well, but would replay a
    // committed write as one that never ran.
    const delivery = execution['delivery'];
    if (delivery !== 'fresh' && delivery !== 'receipt_reconciled') return null;
    if (modelResult['status'] === 'succeeded') {
      return {
        operation_id,
        subject: {
          kind: 'data',
          output: {
            data: modelResult['data'],
            resource_revision: provenance['resource_revision'],
            observed_at: provenance['observed_at'],
            complete: execution['complete'],
            truncated: execution['truncated'],
            receipt,
            status_ref: statusRef,
          },
        },
      };
    }
    if (!isObject(error) || typeof error['code'] !== 'string' || !HANDLER_ERROR_CODES.has(error['code'])) return null;
    const retryAfter = error['retry_after_ms'];
    const reasons = error['reasons'];
    if (!Array.isArray(reasons)) return null;
    return {
      operation_id,
      subject: {
        kind: 'error',
        // verifyResult checked the error against the catalog.
        code: error['code'] as Extract<SealSubject, { kind: 'error' }>['code'],
        ...(typeof retryAfter === 'number' ? { retryAfterMs: retryAfter } : {}),
        reasons: reasons.map((reason) => {
          const entry = reason as { field: string; rule: string };
          return { field: entry.field, rule: entry.rule };
        }),
        receipt,
        status_ref: statusRef,
      },
    };
  } catch {
    return null;
  }
}

/**
 * Whether a stored package that did not verify was sealed for this tool under other contract
 * revisions than `contract`'s: a deploy bumped one the request digest does not bind (handler,
 * producer or policy), so the record was found, but its package cannot verify against the current
 * registry (spec 000: validation recomputes every digest with the current registry). Only picks the
 * note the people who look at the STATUS_CONFLICT read: the answer is the same either way, and a
 * writer of the database could make any record say so. Never throws.
 */
export function sealedUnderOtherRevisions(stored: StoredResult, contract: Readonly<ToolContract>, registry: ToolRegistry): boolean {
  try {
    const parsed = parseUntrustedJson(stored.sealed_json, registry.packageLimits);
    if (!parsed.ok || !isObject(parsed.value)) return false;
    const audit = parsed.value['protected_audit'];
    const sealed = isObject(audit) ? audit['tool_contract'] : undefined;
    if (!isObject(sealed) || sealed['tool_name'] !== contract.tool_name) return false;
    return CONTRACT_REVISIONS.some((revision) => typeof sealed[revision] === 'string' && sealed[revision] !== contract[revision]);
  } catch {
    return false;
  }
}
