import {
  MODEL_RESULT_SCHEMA_VERSION,
  PROTECTED_AUDIT_SCHEMA_VERSION,
  type CallContext,
  type Delivery,
  type ErrorCode,
  type ErrorReason,
  type ExecutionOutcome,
  type JsonObject,
  type JsonValue,
  type ModelResult,
  type PrincipalContext,
  type ProtectedAudit,
  type Redaction,
  type SealedResult,
  type Sha256Hex,
  type ToolContract,
} from '@toolseal/contracts';
import { CanonicalizationError, canonicalize, rememberCanonicalText, type Digester } from '@toolseal/digests';
import { ERROR_CATALOG, makeError } from '@toolseal/errors';
import { deepFreeze, isWellFormedText } from '@toolseal/guard';
import { composeCanonicalModelResult } from './canonical-model-result.js';
import { tryComposeCanonicalProtectedAudit, tryComposeKnownShape } from './canonical-protected-audit.js';
import { checkHandlerOutput, isDownstreamReference } from './check-output.js';
import { callFieldOutsideSchema } from './is-protected-audit.js';
import type { OutputViolation } from './output-violation.js';
import { namesHeldPlace } from './reason-place.js';
import type { ToolRegistry } from './tool-registry.js';
import { clockReadingMs, clockReadingText } from './utc-timestamp.js';

/**
 * What a handler returns: business data plus the envelope the registry needs. Untrusted until
 * `sealResult` has checked all of it; a handler may return any value, and anything outside this
 * exact shape is refused.
 */
export interface HandlerData {
  /** Business data; must match the tool's exact output schema. */
  data: JsonObject;
  /** Revision of the external resource read, matching the tool's `resource_revision` pattern. */
  resource_revision: string;
  /**
   * The revision of the producer that made this result, when the handler reports it: it must equal
   * the registry's `producer_revision` for the tool (another revision is refused as
   * `producer_revision`). The sealed `provenance.producer_revision` is the registry's either way.
   */
  producer_revision?: string;
  /** When the data was observed: UTC RFC 3339 with `Z`. */
  observed_at: string;
  /** `false` for an incomplete result (a page of several); default `true`. */
  complete?: boolean;
  /** `true` when content was cut by a size limit (needs `complete: false`); default `false`. */
  truncated?: boolean;
  /** Downstream receipt of a committed write; goes to `protected_audit` only. */
  receipt?: string | null;
  /** Opaque downstream status reference; goes to `protected_audit` only. */
  status_ref?: string | null;
}

/** What is being sealed: a raw handler result, or a catalogued error the dispatcher decided on. */
export type SealSubject =
  | {
      kind: 'data';
      /** The raw handler result (meant to be a `HandlerData`). Untrusted: any JavaScript value. */
      output: unknown;
    }
  | {
      kind: 'error';
      /** The catalog code. Status, outcome, message and recovery come from the catalog. */
      code: ErrorCode;
      /** Retry delay, where the catalog allows one for `code`. */
      retryAfterMs?: number;
      /**
       * Field-level reasons, where the catalog allows them for `code`. Every field must be `""` or
       * an argument field the tool's input schema declares (`RegisteredTool.inputFields`) that
       * names a place `arguments` hold: each array index an item they have, each member but the
       * last one they have (the last may be missing: a `required` refusal). When `arguments` is
       * `null` (they never parsed), only INVALID_ARGUMENTS reasons name other fields than `""`.
       */
      reasons?: readonly ErrorReason[];
      /**
       * Downstream receipt known to the dispatcher, for `protected_audit` only. Absent, `null`, or
       * what a handler's `receipt` must be (1 to 256 characters, no NUL, no lone surrogate);
       * anything else throws a `TypeError`.
       */
      receipt?: string | null;
      /**
       * Opaque status reference (e.g. for OUTCOME_UNKNOWN), for `protected_audit` only; held to the
       * same rule as `receipt`.
       */
      status_ref?: string | null;
    };

/** Everything `sealResult` needs. All of it except `subject.output` is trusted. */
export interface SealResultInput {
  /** The host's registry. */
  registry: ToolRegistry;
  /**
   * The tool that was called. An unregistered name is sealed as UNKNOWN_TOOL under
   * `registry.unregisteredContract` (whatever the subject says).
   */
  tool_name: string;
  /** The authenticated principal, from the host. `tenant_id` and `subject_id` without lone surrogates. */
  principal: PrincipalContext;
  /** The provider context plus operation id and idempotency key of this execution; ids without lone surrogates. */
  call: CallContext;
  /**
   * The validated arguments (`null` when they never parsed); bound into `request_sha256`. JSON the
   * guard accepted: anything without a canonical JSON form throws a `TypeError`.
   */
  arguments: JsonValue | null;
  /** The handler output or the error to seal. */
  subject: SealSubject;
  /**
   * How the result was delivered. `outcome` may be omitted: data is always `committed`, and an
   * error always gets its catalog outcome. A data subject with any other outcome is a caller bug.
   * `receipt_reconciled` (a status query reconciled a downstream receipt, spec 000) is for a data
   * subject of a registered tool only: an error subject, or an unregistered tool's UNKNOWN_TOOL,
   * is a caller bug. Its output must name its `receipt`: one naming none reconciled nothing and is
   * sealed as OUTCOME_UNKNOWN, and one breaking the contract as OUTPUT_CONTRACT_VIOLATION, both
   * delivered `fresh`.
   */
  execution: { delivery: Delivery; outcome?: ExecutionOutcome };
  /**
   * Injected clock: the `observed_at` of errors, and the reference for refusing handler times in
   * the future.
   */
  now: () => Date | string;
  /** The digester (plain SHA-256, or HMAC when keyed). */
  digester: Digester;
  /**
   * Redactions the host made before sealing (at most 63), recorded in `protected_audit`: each a
   * string `path` of at most 256 characters without lone surrogates and a string `reason` matching
   * `^[a-z][a-z0-9_]{0,63}$`; anything else (a missing or non-string field included) throws a
   * `TypeError` before anything is sealed. A refused handler output adds
   * `{ path: "", reason: "output_contract_violation" }`, and a reconciliation whose output names no
   * receipt `{ path: "", reason: "no_downstream_receipt" }` (its data is withheld either way).
   */
  redactions?: readonly Redaction[];
}

/** The sealed package, its canonical model projection, and why a handler output was refused. */
export interface SealResultOutput {
  /**
   * `model_result` and `protected_audit`, bound by three digests. Both are deeply frozen: a sealed
   * projection never changes (tamper with a copy, as an attacker would have to).
   */
  sealed: SealedResult;
  /**
   * RFC 8785 text of `sealed.model_result`: exactly the bytes `result_sha256` covers, ready for an
   * adapter to put in a provider payload without canonicalizing again.
   */
  canonical_model_result: string;
  /**
   * RFC 8785 text of `sealed.protected_audit`, for the idempotency store without canonicalizing the
   * projection again. A getter: composed when first read, then kept, so a spread copy of the output
   * (`{ ...output }`) does not have it. Reading it also remembers the text beside the frozen
   * projection (`rememberCanonicalText` of `@toolseal/digests`): an audit log whose entry body holds
   * the projection then writes this text instead of walking it (the dispatcher reads it before
   * every audit append). `null` when the projection has no canonical form (a lone surrogate);
   * every string `sealResult` copies into it is checked for one first (an error subject's
   * downstream references included), so a package it seals always has one.
   */
  readonly canonical_protected_audit: string | null;
  /**
   * Why the handler output was refused (then `model_result` is OUTPUT_CONTRACT_VIOLATION); empty
   * otherwise. For the protected audit and the host only: never show it to the model. Bounded
   * (`boundViolations`): at most 64 entries with paths of at most 256 characters.
   */
  violations: OutputViolation[];
}

const DELIVERIES = new Set<string>(['fresh', 'local_replay', 'receipt_reconciled']);
const REDACTION_REASON = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_REDACTIONS = 64;
/** `Redaction.path` `@maxLength` (the protected-audit schema). */
const MAX_REDACTION_PATH_LENGTH = 256;
/** One slot stays free for the seal's own redaction (`output_contract_violation`, `no_downstream_receipt`). */
const MAX_HOST_REDACTIONS = MAX_REDACTIONS - 1;

/**
 * A trusted string with a lone surrogate has no UTF-8 form: no digest, no audit entry can hold it.
 * Said up front, naming the field, rather than by a `CanonicalizationError` from inside the digests.
 * (Built only on failure: the check itself is one native call per field.)
 */
function loneSurrogate(field: string): TypeError {
  return new TypeError(`sealResult: ${field} holds a lone surrogate (text without a UTF-8 form cannot be digested or audited)`);
}

/**
 * A checked private copy of the host's redactions, each field read once (what was checked is what is
 * sealed). Every field is tested for its type first: a pattern test would coerce `undefined`, `null`
 * or `['ok']` to text that matches, and the sealed package would then fail its own verification.
 */
function copyRedactions(value: unknown): Redaction[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError('sealResult: redactions must be an array');
  if (value.length > MAX_HOST_REDACTIONS) throw new TypeError(`sealResult: more than ${MAX_HOST_REDACTIONS} redactions`);
  const copies: Redaction[] = [];
  // An index loop, not `map`: a hole in a sparse array is a missing redaction, not one to skip.
  for (let index = 0; index < value.length; index++) {
    const redaction: unknown = value[index];
    const where = `redactions[${index}]`;
    if (typeof redaction !== 'object' || redaction === null || Array.isArray(redaction)) {
      throw new TypeError(`sealResult: ${where} must be an object { path, reason }`);
    }
    const { path, reason } = redaction as { path?: unknown; reason?: unknown };
    if (typeof path !== 'string' || path.length > MAX_REDACTION_PATH_LENGTH) {
      throw new TypeError(`sealResult: ${where}.path must be a string of at most ${MAX_REDACTION_PATH_LENGTH} characters`);
    }
    if (typeof reason !== 'string' || !REDACTION_REASON.test(reason)) {
      throw new TypeError(`sealResult: ${where}.reason must be a snake_case string (${REDACTION_REASON.source})`);
    }
    if (!isWellFormedText(path)) throw loneSurrogate('a redaction path');
    copies.push({ path, reason });
  }
  return copies;
}

/** Checks the trusted input and returns the private copy of its redactions. */
function checkTrustedInput(input: SealResultInput): Redaction[] {
  const { principal, call, execution } = input;
  if (typeof principal?.tenant_id !== 'string' || typeof principal.subject_id !== 'string') {
    throw new TypeError('sealResult: principal needs tenant_id and subject_id');
  }
  if (!isWellFormedText(principal.tenant_id)) throw loneSurrogate('principal.tenant_id');
  if (!isWellFormedText(principal.subject_id)) throw loneSurrogate('principal.subject_id');
  for (const key of ['provider', 'api_family', 'response_id', 'call_id', 'adapter_revision', 'operation_id'] as const) {
    if (typeof call?.[key] !== 'string' || call[key].length === 0) throw new TypeError(`sealResult: call.${key} is required`);
    if (!isWellFormedText(call[key])) throw loneSurrogate(`call.${key}`);
  }
  if (call.idempotency_key !== null) {
    if (typeof call.idempotency_key !== 'string' || call.idempotency_key.length === 0) {
      throw new TypeError('sealResult: call.idempotency_key must be a non-empty string or null');
    }
    if (!isWellFormedText(call.idempotency_key)) throw loneSurrogate('call.idempotency_key');
  }
  const outside = callFieldOutsideSchema(call);
  if (outside !== null) {
    throw new TypeError(`sealResult: call.${outside} breaks the protected_audit schema (PROTECTED_AUDIT_SCHEMA: its pattern or length)`);
  }
  if (!DELIVERIES.has(execution?.delivery)) throw new TypeError('sealResult: execution.delivery is not a Delivery');
  // Spec 000: `local_replay` says a local idempotency record was hit, `receipt_reconciled` that a
  // status query reconciled a write's receipt; both answer a call that has an idempotency key.
  if (execution.delivery !== 'fresh' && call.idempotency_key === null) {
    throw new TypeError(`sealResult: execution.delivery "${execution.delivery}" needs call.idempotency_key (a replay or reconciliation answers a keyed call)`);
  }
  return copyRedactions(input.redactions);
}

/**
 * Spec 000: `receipt_reconciled` says an explicit status query reconciled a downstream receipt, the
 * downstream system's confirmation of a commit. Only a result whose outcome is `committed` (data)
 * can say that: every catalogued error has outcome `not_started` or `unknown`. The host asking for
 * an error so delivered is a caller bug, refused before anything is sealed.
 */
function reconciledErrorBug(code: ErrorCode): TypeError {
  return new TypeError(
    `sealResult: execution.delivery "receipt_reconciled" cannot carry the error ${String(code)} (a reconciled receipt confirms a commit; no error's outcome is "committed")`,
  );
}

interface Downstream {
  receipt: string | null;
  status_ref: string | null;
}

/**
 * An error subject's `receipt` or `status_ref` (read once), held to the rule a handler's are held
 * to (`isDownstreamReference`: absent or `null`, or 1 to 256 UTF-16 units without NUL or a lone
 * surrogate, what every idempotency store can hold). Within `PROTECTED_AUDIT_SCHEMA`, so
 * `sealResult` never seals a package its own verification calls malformed (a number, an object, a
 * 300-character receipt did), nor one the data path would refuse (a NUL).
 */
function errorReference(value: unknown, field: 'receipt' | 'status_ref'): string | null {
  if (typeof value === 'string' && value.length > 0 && !isWellFormedText(value)) throw loneSurrogate(`subject.${field}`);
  if (!isDownstreamReference(value)) {
    throw new TypeError(`sealResult: subject.${field} must be null or a string of 1 to 256 characters without NUL (a downstream reference every idempotency store can hold)`);
  }
  return value ?? null;
}

/**
 * Seals one call into its two projections (spec 000, "Protected audit and triple binding").
 *
 * A data subject is checked against the tool's whole output contract first; output that breaks it
 * is not sealed as data but as the catalog's OUTPUT_CONTRACT_VIOLATION error, and nothing from it
 * reaches `model_result` (`violations` says why). Errors are built from the catalog with
 * `trust: "trusted_control"` and the registry's control provenance. `model_result` is canonicalized
 * once; the three digests are computed once from the trusted principal, call and registry.
 *
 * Throws only for caller bugs (malformed trusted input, lone surrogates in the principal or call
 * ids and redactions without a string path and snake_case string reason included, arguments without a canonical JSON form, an error the catalog forbids or whose
 * reason fields the tool's input schema does not declare or name a place the arguments do not hold,
 * an error (UNKNOWN_TOOL included) delivered `receipt_reconciled`, an error's `receipt` or
 * `status_ref` that a handler's would be refused for, a broken clock), never because of what a
 * handler returned. A `receipt_reconciled` output naming no receipt is no caller bug (the host
 * learns it from the seal): it is sealed as OUTCOME_UNKNOWN, delivered `fresh`.
 */
export function sealResult(input: SealResultInput): SealResultOutput {
  const redactions = checkTrustedInput(input);
  const { registry, subject, execution } = input;
  const tool = registry.get(input.tool_name);
  const contract: Readonly<ToolContract> = tool?.contract ?? registry.unregisteredContract;
  const reading = input.now();
  const nowMs = clockReadingMs(reading);
  let violations: OutputViolation[] = [];
  let modelResult: ModelResult;
  let canonical: string | null = null;
  let downstream: Downstream = { receipt: null, status_ref: null };
  const { digester, principal, call } = input;
  // Computed first: a data result is searched for them too (spec 000: the request digest is
  // deliberately absent from the model projection, and so is the principal's reference).
  const request_sha256 = requestDigestOf(digester, principal, contract, input.arguments);
  const principal_ref = digester.principalRef({ tenant_id: principal.tenant_id, subject_id: principal.subject_id });

  if (tool === undefined) {
    if (execution.delivery === 'receipt_reconciled') throw reconciledErrorBug('UNKNOWN_TOOL');
    modelResult = errorResult(registry, 'UNKNOWN_TOOL', {}, execution.delivery, clockReadingText(reading));
  } else if (subject.kind === 'error') {
    if (execution.delivery === 'receipt_reconciled') throw reconciledErrorBug(subject.code);
    const options: { retryAfterMs?: number; reasons?: ErrorReason[] } = {};
    if (subject.retryAfterMs !== undefined) options.retryAfterMs = subject.retryAfterMs;
    if (subject.reasons !== undefined) {
      // A reason names an argument field of this tool's contract, or nothing, and a place this
      // call's arguments hold: `verifyResult` refuses any other field, so sealing one is a caller
      // bug (see `InputFieldTemplates` and `namesHeldPlace`).
      for (const reason of subject.reasons) {
        const { field } = reason;
        if (!tool.inputFields.declares(field)) {
          throw new TypeError('sealResult: an error reason field is not an argument field the input schema declares');
        }
        if (!namesHeldPlace(subject.code, input.arguments, field)) {
          throw new TypeError(
            'sealResult: an error reason field names a place the arguments do not hold (an array index beyond their items, or a place below a member they lack)',
          );
        }
      }
      options.reasons = [...subject.reasons];
    }
    // Checked before the error is built: a caller bug throws before anything is sealed.
    downstream = { receipt: errorReference(subject.receipt, 'receipt'), status_ref: errorReference(subject.status_ref, 'status_ref') };
    modelResult = errorResult(registry, subject.code, options, execution.delivery, clockReadingText(reading));
  } else {
    if (execution.outcome !== undefined && execution.outcome !== 'committed') {
      throw new TypeError('sealResult: a data result has outcome "committed"; seal an error otherwise');
    }
    // Values the model projection must never carry (spec 000: no principal identifiers, internal
    // ids, receipts or request digest); the output's own receipt and status reference are added
    // by the check.
    const checked = checkHandlerOutput(tool, subject.output, input.arguments, nowMs, [
      principal.tenant_id,
      principal.subject_id,
      call.operation_id,
      call.idempotency_key,
      request_sha256,
      principal_ref,
    ]);
    // Spec 000: `receipt_reconciled` says a status query reconciled a downstream receipt, so only
    // the committed result holding that receipt is delivered so. An error sealed in its place is a
    // new answer of the seal (`fresh`): no error's outcome is the `committed` a receipt confirms.
    const reconciled = execution.delivery === 'receipt_reconciled';
    if (checked.ok && reconciled && checked.value.receipt === null) {
      // An answer naming no receipt reconciled nothing: the outcome stays unknown (as the
      // dispatcher answers it), and its data never reaches the model.
      modelResult = errorResult(registry, 'OUTCOME_UNKNOWN', {}, 'fresh', clockReadingText(reading));
      downstream = { receipt: null, status_ref: checked.value.status_ref };
      redactions.push({ path: '', reason: 'no_downstream_receipt' });
    } else if (checked.ok) {
      const value = checked.value;
      modelResult = Object.freeze({
        schema_version: MODEL_RESULT_SCHEMA_VERSION,
        status: 'succeeded',
        // A private copy parsed from the canonical text: the handler keeps no reference into the
        // sealed projection, and the projection is exactly the validated, hashed text.
        data: deepFreeze(value.data),
        error: null,
        execution: Object.freeze({
          outcome: 'committed',
          delivery: execution.delivery,
          complete: value.complete,
          truncated: value.truncated,
        }),
        provenance: Object.freeze({
          source_label: tool.sourceLabel,
          producer_revision: contract.producer_revision,
          resource_revision: value.resource_revision,
          observed_at: value.observed_at,
          trust: 'untrusted_data',
        }),
      });
      downstream = { receipt: value.receipt, status_ref: value.status_ref };
      canonical = composeCanonicalModelResult(value.canonical_data, modelResult);
    } else {
      violations = checked.violations;
      modelResult = errorResult(registry, 'OUTPUT_CONTRACT_VIOLATION', {}, reconciled ? 'fresh' : execution.delivery, clockReadingText(reading));
      downstream = { receipt: checked.receipt, status_ref: checked.status_ref };
      redactions.push({ path: '', reason: 'output_contract_violation' });
    }
  }

  canonical ??= canonicalize(modelResult);
  const result_sha256 = digester.resultDigestFromCanonical(canonical);
  const tool_contract = Object.freeze({ ...contract });
  const call_binding_sha256 = digester.callBindingDigest({
    provider: call.provider,
    api_family: call.api_family,
    response_id: call.response_id,
    call_id: call.call_id,
    operation_id: call.operation_id,
    idempotency_key: call.idempotency_key,
    adapter_revision: call.adapter_revision,
    tool_contract,
    request_sha256,
    result_sha256,
  });

  // Both projections are immutable from here on: what was validated and hashed stays what it is.
  // Each level is frozen as it is built (the model projection above; `deepFreeze` for what this
  // function did not build member by member: `data`, an error and the redactions).
  const protectedAudit: ProtectedAudit = Object.freeze({
    schema_version: PROTECTED_AUDIT_SCHEMA_VERSION,
    principal_ref,
    provider_context: Object.freeze({
      provider: call.provider,
      api_family: call.api_family,
      response_id: call.response_id,
      call_id: call.call_id,
      adapter_revision: call.adapter_revision,
    }),
    tool_contract,
    // Strings or `null` only: a handler's references and an error subject's are checked alike.
    downstream: Object.freeze({
      operation_id: call.operation_id,
      idempotency_key: call.idempotency_key,
      receipt: downstream.receipt,
      status_ref: downstream.status_ref,
    }),
    binding: Object.freeze({ request_sha256, result_sha256, call_binding_sha256 }),
    redactions: deepFreeze(redactions),
  });
  return new SealedOutput(Object.freeze({ model_result: modelResult, protected_audit: protectedAudit }), canonical, violations, contract);
}

/**
 * `request_sha256` of the call. Everything else it covers is checked (principal) or registered
 * (contract) text by now, so a value without a canonical form can only be in the arguments. They
 * are not walked here: the validated arguments are JSON the guard accepted (no lone surrogate, no
 * non-JSON value), and the digest's own walk finds anything else; only its error is made clear.
 */
function requestDigestOf(
  digester: Digester,
  principal: PrincipalContext,
  contract: Readonly<ToolContract>,
  args: JsonValue | null,
): Sha256Hex {
  try {
    return digester.requestDigest({
      tenant_id: principal.tenant_id,
      subject_id: principal.subject_id,
      tool_name: contract.tool_name,
      arguments: args,
      input_revision: contract.input_revision,
      output_revision: contract.output_revision,
      effect_revision: contract.effect_revision,
    });
  } catch (error) {
    if (!CanonicalizationError.isInstance(error)) throw error;
    throw new TypeError(`sealResult: arguments have no canonical JSON form (${error.reason}): pass the validated arguments`, {
      cause: error,
    });
  }
}

/**
 * The output of `sealResult`. The protected projection's text is composed when first read and then
 * kept: only writes store it (idempotency records), and a read call never asks for it. The output
 * and its `sealed` pair are frozen: the text is composed for, and remembered beside, the projection
 * `sealResult` built, never one put in its place later.
 */
class SealedOutput implements SealResultOutput {
  #canonicalProtectedAudit: string | null | undefined;
  readonly #contract: Readonly<ToolContract>;

  constructor(
    readonly sealed: SealedResult,
    readonly canonical_model_result: string,
    readonly violations: OutputViolation[],
    contract: Readonly<ToolContract>,
  ) {
    this.#contract = contract;
    Object.freeze(this);
  }

  get canonical_protected_audit(): string | null {
    if (this.#canonicalProtectedAudit === undefined) {
      const audit = this.sealed.protected_audit;
      const known = tryComposeKnownShape(audit, this.#contract);
      if (known !== undefined) {
        // Remembered beside the frozen projection: an audit log canonicalizing an entry body that
        // holds it (`reuseRemembered`) writes this text instead of walking the projection again.
        // Only a text of the known shape, whose depth is known; nothing else is remembered.
        try {
          rememberCanonicalText(audit, known, audit.redactions.length === 0 ? 2 : 3);
        } catch {
          // Code holding the projection remembered a text for it first (its own capability).
        }
      }
      this.#canonicalProtectedAudit = known ?? tryComposeCanonicalProtectedAudit(audit, this.#contract);
    }
    return this.#canonicalProtectedAudit;
  }
}

/** A catalogued error result: status and outcome from the catalog, control provenance. */
function errorResult(
  registry: ToolRegistry,
  code: ErrorCode,
  options: { retryAfterMs?: number; reasons?: ErrorReason[] },
  delivery: Delivery,
  observedAt: string,
): ModelResult {
  const entry = ERROR_CATALOG[code];
  return Object.freeze({
    schema_version: MODEL_RESULT_SCHEMA_VERSION,
    status: entry.status,
    data: null,
    error: deepFreeze(makeError(code, options)),
    // An error result is whole: nothing was cut and no further page exists.
    execution: Object.freeze({ outcome: entry.outcome, delivery, complete: true, truncated: false }),
    provenance: Object.freeze({
      source_label: registry.control.source_label,
      producer_revision: registry.control.producer_revision,
      resource_revision: null,
      observed_at: observedAt,
      trust: 'trusted_control',
    }),
  });
}

