import type {
  CallContext,
  JsonObject,
  JsonValue,
  ModelResult,
  PrincipalContext,
  ProtectedAudit,
  Sha256Hex,
  ToolContract,
  VerifyFailureReason,
  VerifyOutcome,
} from '@toolseal/contracts';
import { constantTimeEqual, type Digester } from '@toolseal/digests';
import { ERROR_CATALOG, checkError } from '@toolseal/errors';
import { checkUntrustedValue, compileSchema, utf8LengthWithin } from '@toolseal/guard';
import { canonicalDataOf, composeCanonicalModelResult, tryCanonicalize } from './canonical-model-result.js';
import { checkCompletion, checkOutputData, isResourceRevision, MAX_CLOCK_SKEW_MS } from './check-output.js';
import { CONTRACT_KEY_LIST, PROVIDER_CONTEXT_KEY_LIST } from './contract-keys.js';
import { findCredentialPairs } from './credential-pairs.js';
import { findCredentialValues, holdsCredentialValue } from './find-credential-values.js';
import { findCredentialsInJsonStrings } from './find-credentials-in-json-strings.js';
import { containsProtectedValue, findProtectedValues, protectedNeedles } from './find-protected-values.js';
import { isProtectedAudit } from './is-protected-audit.js';
import { MODEL_RESULT_SCHEMA } from './package-schema.js';
import { namesHeldPlace } from './reason-place.js';
import type { SealResultOutput } from './seal-result.js';
import type { RegisteredTool, ToolRegistry } from './tool-registry.js';
import { clockReadingMs, parseUtcTimestamp, timestampFraction } from './utc-timestamp.js';

/**
 * What the verifier trusts: the host's own record of the call, never anything read from the
 * package. Every digest is recomputed from it.
 */
export interface TrustedContext {
  /** The host's registry (contracts, output schemas, provenance, control identity). */
  registry: ToolRegistry;
  /** The tool the dispatcher ran (an unregistered name expects an UNKNOWN_TOOL result). */
  tool_name: string;
  /** The authenticated principal of the call. */
  principal: PrincipalContext;
  /** The provider context, operation id and idempotency key of this execution. */
  call: CallContext;
  /** The validated arguments the request digest was made over (`null` when they never parsed). */
  arguments: JsonValue | null;
  /** The same digester (and key, when keyed) the seal used. */
  digester: Digester;
  /**
   * `digester.principalRef(principal)`, when the trusted side already computed it (the dispatcher
   * does once per turn). It derives from `principal` alone, so it is the same for every package of
   * the principal; computed here when absent. Never take it from a package.
   */
  principal_ref?: Sha256Hex;
  /**
   * `digester.requestDigest` of `principal`, the contract of `tool_name` and `arguments`, when the
   * trusted side already computed it from exactly those (the dispatcher keeps the one its seal
   * made). It derives from trusted inputs alone; computed here when absent. Never take it from a
   * package: `result_sha256` and `call_binding_sha256` are recomputed on every verification.
   */
  request_sha256?: Sha256Hex;
  /**
   * What `sealResult` returned for this call, when the trusted side keeps it (the dispatcher does).
   * A package presented with these very projections (compared by identity; `sealResult` froze them)
   * is known to be unchanged since it was sealed: its canonical text is taken from here instead of
   * canonicalizing it again, and the guard walk over it is skipped. Every content check and every
   * digest still runs. Only ever the output `sealResult` returned, never a package read elsewhere.
   * When present it is also the only result verification accepts for the call: a package whose
   * recomputed `result_sha256` differs from this one's fails with `result_digest`, even one sealed
   * genuinely for the same call (say a result the host withheld and replaced with an error).
   */
  sealed?: Pick<SealResultOutput, 'sealed' | 'canonical_model_result'>;
  /**
   * The host's clock, as `SealResultInput.now` (a `Date`, or a UTC RFC 3339 string with `Z`). When
   * present, a `model_result.provenance.observed_at` later than its reading plus
   * `MAX_CLOCK_SKEW_MS` fails with `provenance`, as `sealResult` refuses such an output; so does a
   * clock that throws or reads anything else (nothing then shows the time is not in the future).
   * When absent, that future check is skipped: only the timestamp's form is checked. Read once per
   * verification. Trusted like the rest of this context: never a time read from a package.
   */
  now?: () => Date | string;
}

/**
 * The canonical text `sealResult` returned for the call of `trusted`, when `modelResult` and
 * `protectedAudit` are the very (frozen) projections it returned with it; `undefined` otherwise.
 */
export function sealedTextFor(modelResult: unknown, protectedAudit: unknown, trusted: TrustedContext): string | undefined {
  const own = trusted.sealed;
  if (own === undefined || modelResult !== own.sealed.model_result || protectedAudit !== own.sealed.protected_audit) return undefined;
  // Cheap evidence that they came from sealResult, which freezes every level.
  return Object.isFrozen(modelResult) && Object.isFrozen(protectedAudit) ? own.canonical_model_result : undefined;
}

/** Options of `verifyResult` (the third argument of a `ResultVerifier`). */
export interface VerifyResultOptions {
  /**
   * The RFC 8785 text the caller will send as `model_result`, when `sealed.model_result` is a
   * private plain copy whose canonical text it is (adapters copy the presented value once within
   * bounds and canonicalize that copy). `result_sha256` is then computed over these bytes, the
   * bytes the model receives, instead of canonicalizing the copy again; the copy is what gets
   * validated. The two correspond by construction: `canonicalize` of the copy is this text. The
   * caller must never pass text it did not canonicalize itself.
   */
  canonical_model_result?: string;
}

/** Reasons in the order `VerifyFailureReason` lists them, so outcomes compare stably. */
const REASON_ORDER: readonly VerifyFailureReason[] = [
  'malformed_package',
  'model_result_schema',
  'output_contract',
  'error_catalog',
  'provenance',
  'principal_ref',
  'provider_context',
  'tool_contract',
  'downstream',
  'request_digest',
  'result_digest',
  'call_binding',
  'unregistered_adapter',
];

const PACKAGE_KEYS = ['model_result', 'protected_audit'];

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Builds a failed outcome from a set of reasons, in canonical order. */
export function failWith(reasons: Iterable<VerifyFailureReason>): VerifyOutcome {
  const set = reasons instanceof Set ? (reasons as ReadonlySet<VerifyFailureReason>) : new Set(reasons);
  if (set.size === 0) return { ok: true };
  return { ok: false, reasons: REASON_ORDER.filter((reason) => set.has(reason)) };
}

/**
 * Verifies a sealed package against trusted context (spec 000: "validate_result must recompute all
 * three using the current trusted principal, call, and registry specification"; "the adapter runs
 * the complete result validation again"). It checks the package shape, revalidates `model_result`
 * against the v2 schema and the tool's output contract or the error catalog, including the two
 * checks `sealResult` makes beyond the schema: no string of `data` contains a protected value of
 * the call (`output_contract`) and, when `trusted.now` is given, `observed_at` is not beyond the
 * allowed clock skew in the future (`provenance`). It checks provenance against the registry,
 * compares `principal_ref`, the provider context, the tool contract and the downstream ids with
 * trusted values (and that a `receipt_reconciled` delivery is a succeeded result holding its
 * `receipt`; `downstream`), and recomputes all three digests, compared in constant time. A digest
 * is never trusted because it looks like one. All of it runs for the dispatcher's own frozen package
 * (`trusted.sealed`) too; only the guard walk and the canonicalization are skipped there.
 *
 * Returns every failing reason (a finite list). Never throws on any `sealed` value.
 *
 * Deliberately not bound here: `protected_audit.downstream.receipt`, `downstream.status_ref` and
 * `redactions`. They are protected-only data the dispatcher learns after or beside the call, and the
 * audit log's hash chain protects them where they are stored.
 */
export function verifyResult(sealed: unknown, trusted: TrustedContext, options?: VerifyResultOptions): VerifyOutcome {
  try {
    const text = options?.canonical_model_result;
    return verifyPackage(sealed, trusted, typeof text === 'string' ? text : undefined);
  } catch {
    // Unreachable for JSON data; a Proxy with throwing traps, for instance, lands here.
    return failWith(['malformed_package']);
  }
}

/** The model projection's schema, compiled on the first verification (the pinned Ajv caches it). */
let modelResultValidator: ReturnType<typeof compileSchema> | undefined;

function getModelResultValidator(): ReturnType<typeof compileSchema> {
  modelResultValidator ??= compileSchema(MODEL_RESULT_SCHEMA);
  return modelResultValidator;
}

/**
 * The package as a plain `{ model_result, protected_audit }` when both projections are the ones
 * `sealResult` returned for this call (`trusted.sealed`) and `canonicalText`, if given, is the text
 * it returned with them: nothing in them can have changed, so the guard walk cannot find anything.
 * `undefined` otherwise.
 */
function ownSealedPackage(sealed: unknown, trusted: TrustedContext, canonicalText: string | undefined): JsonObject | undefined {
  if (trusted.sealed === undefined) return undefined;
  if (typeof sealed !== 'object' || sealed === null || Object.getPrototypeOf(sealed) !== Object.prototype) return undefined;
  const modelResult = Object.getOwnPropertyDescriptor(sealed, 'model_result');
  const protectedAudit = Object.getOwnPropertyDescriptor(sealed, 'protected_audit');
  if (modelResult === undefined || protectedAudit === undefined || !('value' in modelResult) || !('value' in protectedAudit)) {
    return undefined;
  }
  const text = sealedTextFor(modelResult.value, protectedAudit.value, trusted);
  if (text === undefined || (canonicalText !== undefined && text !== canonicalText)) return undefined;
  if (Reflect.ownKeys(sealed).length !== PACKAGE_KEYS.length) return undefined;
  return { model_result: modelResult.value as JsonValue, protected_audit: protectedAudit.value as JsonValue };
}

function verifyPackage(sealed: unknown, trusted: TrustedContext, canonicalText: string | undefined): VerifyOutcome {
  const { registry } = trusted;
  let value = ownSealedPackage(sealed, trusted, canonicalText);
  const isOwnPackage = value !== undefined;
  if (value !== undefined) {
    canonicalText ??= trusted.sealed?.canonical_model_result;
  } else {
    const guarded = checkUntrustedValue(sealed, registry.packageLimits);
    if (!guarded.ok || !isObject(guarded.value)) return failWith(['malformed_package']);
    const keys = Object.keys(guarded.value);
    const guardedValue = guarded.value;
    if (keys.length !== PACKAGE_KEYS.length || !PACKAGE_KEYS.every((key) => Object.hasOwn(guardedValue, key))) {
      return failWith(['malformed_package']);
    }
    value = guardedValue;
  }
  // PROTECTED_AUDIT_SCHEMA, as `isProtectedAudit` checks it (same verdicts, a fifth of the time).
  if (!isProtectedAudit(value.protected_audit)) return failWith(['malformed_package']);
  const audit = value.protected_audit as unknown as ProtectedAudit;
  const modelResultValue = value.model_result as JsonValue;

  const reasons = new Set<VerifyFailureReason>();
  const tool = registry.get(trusted.tool_name);
  const contract = tool?.contract ?? registry.unregisteredContract;

  let canonicalModelResult: string | null;
  if (!getModelResultValidator()(modelResultValue)) {
    reasons.add('model_result_schema');
    canonicalModelResult = canonicalText ?? tryCanonicalize(modelResultValue);
  } else {
    const modelResult = modelResultValue as unknown as ModelResult;
    const maxBytes = modelResult.data === null || tool === undefined ? null : tool.limits.maxBytes;
    let dataWithinLimit = true;
    // A text holding the RFC 8785 text of `data`, for the protected-value pass (`null`: walk them all).
    let dataText: string | null;
    if (canonicalText !== undefined) {
      // The bytes the caller sends are hashed as they are. `data` is a member of them: only a text
      // over the limit needs `data` measured alone.
      canonicalModelResult = canonicalText;
      const dataOfText = canonicalDataOf(canonicalText);
      dataText = dataOfText ?? canonicalText;
      if (maxBytes !== null && !utf8LengthWithin(canonicalText, maxBytes)) {
        const canonicalData = dataOfText ?? tryCanonicalize(modelResult.data);
        dataWithinLimit = canonicalData !== null && utf8LengthWithin(canonicalData, maxBytes);
      }
    } else {
      // Canonicalize data once: its size is part of the contract, and the whole text is hashed.
      const canonicalData = modelResult.data === null ? 'null' : tryCanonicalize(modelResult.data);
      canonicalModelResult = canonicalData === null ? null : composeCanonicalModelResult(canonicalData, modelResult);
      dataText = canonicalData;
      if (maxBytes !== null) dataWithinLimit = canonicalData !== null && utf8LengthWithin(canonicalData, maxBytes);
    }
    checkModelResult(modelResult, tool, contract, trusted, audit, dataText, reasons);
    if (!dataWithinLimit) reasons.add('output_contract');
    // The tool's own bounds on depth, items, keys, string length and values, as sealing applied
    // them (the package guard above used the largest of any tool): a package stored before a
    // limit was tightened, or forged where the digests are unkeyed, is held to the limits in force.
    // The trusted side's own package was sealed under them just now.
    if (!isOwnPackage && tool !== undefined && modelResult.data !== null && !checkUntrustedValue(modelResult.data, tool.dataLimits).ok) {
      reasons.add('output_contract');
    }
  }

  const { digester, principal, call } = trusted;
  const principalRef =
    trusted.principal_ref ?? digester.principalRef({ tenant_id: principal.tenant_id, subject_id: principal.subject_id });
  if (!constantTimeEqual(principalRef, audit.principal_ref)) reasons.add('principal_ref');
  for (const key of PROVIDER_CONTEXT_KEY_LIST) {
    if (audit.provider_context[key] !== call[key]) reasons.add('provider_context');
  }
  for (const key of CONTRACT_KEY_LIST) {
    if (audit.tool_contract[key] !== contract[key]) reasons.add('tool_contract');
  }
  if (audit.downstream.operation_id !== call.operation_id || audit.downstream.idempotency_key !== call.idempotency_key) {
    reasons.add('downstream');
  }

  // Recompute from trusted data only: the request from principal, registry contract and arguments;
  // the result from the projection as presented; the call binding from both recomputed digests.
  const request =
    trusted.request_sha256 ??
    tryDigest(() =>
      digester.requestDigest({
        tenant_id: principal.tenant_id,
        subject_id: principal.subject_id,
        tool_name: contract.tool_name,
        arguments: trusted.arguments,
        input_revision: contract.input_revision,
        output_revision: contract.output_revision,
        effect_revision: contract.effect_revision,
      }),
    );
  if (request === null || !constantTimeEqual(request, audit.binding.request_sha256)) reasons.add('request_digest');

  const result =
    canonicalModelResult === null ? null : tryDigest(() => digester.resultDigestFromCanonical(canonicalModelResult));
  if (result === null || !constantTimeEqual(result, audit.binding.result_sha256)) reasons.add('result_digest');
  // The trusted side's own package is the only one it may deliver for the call: another package
  // sealed genuinely for the same call (a result the dispatcher withheld because its audit append
  // failed, read from the idempotency store) is refused, not taken because its digests hold.
  // (The trusted side's very package, found by identity, is that package: nothing to compare.)
  const delivered = isOwnPackage ? undefined : trusted.sealed?.sealed.protected_audit.binding.result_sha256;
  if (delivered !== undefined && (result === null || !constantTimeEqual(result, delivered))) reasons.add('result_digest');

  const binding =
    request === null || result === null
      ? null
      : tryDigest(() =>
          digester.callBindingDigest({
            provider: call.provider,
            api_family: call.api_family,
            response_id: call.response_id,
            call_id: call.call_id,
            operation_id: call.operation_id,
            idempotency_key: call.idempotency_key,
            adapter_revision: call.adapter_revision,
            tool_contract: { ...contract },
            request_sha256: request,
            result_sha256: result,
          }),
        );
  if (binding === null || !constantTimeEqual(binding, audit.binding.call_binding_sha256)) reasons.add('call_binding');

  return failWith(reasons);
}

/**
 * The protected values of the call, the same values `sealResult` searches `data` for (see
 * `protectedNeedles`): the trusted principal's `tenant_id` and `subject_id`, the trusted call's
 * `operation_id` and `idempotency_key`, and the package's own downstream `receipt` and
 * `status_ref`, request digest and principal reference.
 */
function callNeedles(trusted: TrustedContext, audit: ProtectedAudit): string[] {
  const { principal, call } = trusted;
  return protectedNeedles([
    principal.tenant_id,
    principal.subject_id,
    call.operation_id,
    call.idempotency_key,
    audit.downstream.receipt,
    audit.downstream.status_ref,
    // The package's own: verification fails elsewhere when they are not the call's.
    audit.binding.request_sha256,
    audit.principal_ref,
  ]);
}

function tryDigest(compute: () => string): string | null {
  try {
    return compute();
  } catch {
    return null;
  }
}

/**
 * Whether `observedAt` is a UTC timestamp `sealResult` could have accepted: a real instant and, when
 * the trusted side gave its clock, at most `MAX_CLOCK_SKEW_MS` after it (as `checkHandlerOutput`).
 */
function isObservedAtAcceptable(observedAt: string, now: (() => Date | string) | undefined): boolean {
  const observedMs = parseUtcTimestamp(observedAt);
  if (Number.isNaN(observedMs)) return false;
  if (now === undefined) return true;
  let nowMs: number;
  try {
    nowMs = clockReadingMs(now());
  } catch {
    // A broken clock shows nothing about the time: the package is not taken as valid on it.
    return false;
  }
  return observedMs <= nowMs + MAX_CLOCK_SKEW_MS;
}

function checkModelResult(
  result: ModelResult,
  tool: RegisteredTool | undefined,
  contract: Readonly<ToolContract>,
  trusted: TrustedContext,
  audit: ProtectedAudit,
  dataText: string | null,
  reasons: Set<VerifyFailureReason>,
): void {
  const { execution, provenance } = result;
  if (!isObservedAtAcceptable(provenance.observed_at, trusted.now)) reasons.add('provenance');
  // A replay or a reconciliation answers a keyed call (`sealResult` refuses one without a key).
  if (execution.delivery !== 'fresh' && trusted.call.idempotency_key === null) reasons.add('downstream');
  // Spec 000: `receipt_reconciled` says a status query reconciled a downstream receipt, the
  // downstream's confirmation of a commit: only a succeeded (`committed`) result holding that
  // receipt says so. No error does (each has outcome `not_started` or `unknown`), and `sealResult`
  // seals an output naming no receipt as OUTCOME_UNKNOWN, delivered `fresh`.
  if (execution.delivery === 'receipt_reconciled' && (result.status !== 'succeeded' || audit.downstream.receipt === null)) {
    reasons.add('downstream');
  }

  if (result.status === 'succeeded') {
    if (result.error !== null || result.data === null || execution.outcome !== 'committed') {
      reasons.add('model_result_schema');
    }
    if (tool === undefined) {
      reasons.add('output_contract');
    } else {
      const needles = callNeedles(trusted, audit);
      if (result.data !== null) {
        if (checkOutputData(tool, result.data, trusted.arguments).length > 0) {
          reasons.add('output_contract');
        } else if (
          findProtectedValues(result.data, dataText, needles).length > 0 ||
          findCredentialValues(result.data, dataText).length > 0 ||
          findCredentialPairs(tool, result.data).length > 0 ||
          findCredentialsInJsonStrings(tool, result.data, dataText).length > 0
        ) {
          // `sealResult` refuses data carrying a protected value of the call or a credential, also
          // inside a JSON string (its `protected_value` and `credential_value` rules): a package
          // holding one was not sealed
          // from this call's output as it stands.
          reasons.add('output_contract');
        }
      }
      if (checkCompletion(tool, execution.complete, execution.truncated).length > 0) reasons.add('output_contract');
      if (
        provenance.trust !== 'untrusted_data' ||
        provenance.source_label !== tool.sourceLabel ||
        provenance.producer_revision !== contract.producer_revision ||
        !isResourceRevision(tool, provenance.resource_revision) ||
        // The handler strings outside `data` the model sees: `sealResult` refuses a
        // `resource_revision` carrying a protected value of the call or a credential, and an
        // `observed_at` whose fraction spells one (a numeric id).
        (provenance.resource_revision !== null &&
          (containsProtectedValue(provenance.resource_revision, needles) ||
            holdsCredentialValue(provenance.resource_revision))) ||
        containsProtectedValue(timestampFraction(provenance.observed_at), needles)
      ) {
        reasons.add('provenance');
      }
    }
    return;
  }

  if (result.error === null || result.data !== null || !execution.complete || execution.truncated) {
    reasons.add('model_result_schema');
  }
  if (result.error !== null) {
    const checked = checkError(result.error);
    if (!checked.ok) {
      reasons.add('error_catalog');
    } else {
      const entry = ERROR_CATALOG[checked.error.code];
      if (result.status !== entry.status || execution.outcome !== entry.outcome) reasons.add('error_catalog');
      if (tool === undefined && checked.error.code !== 'UNKNOWN_TOOL') reasons.add('error_catalog');
      // A reason may only point at an argument field the tool's input contract declares: the text
      // of a `trusted_control` error comes from the contract, never from a handler or a store. And
      // at a place the trusted arguments hold (`namesHeldPlace`): a template's `*` would otherwise
      // let any index through, digits a component chose (a numeric id).
      for (const reason of checked.error.reasons) {
        if (
          tool === undefined
            ? reason.field !== ''
            : !tool.inputFields.declares(reason.field) || !namesHeldPlace(checked.error.code, trusted.arguments, reason.field)
        ) {
          reasons.add('error_catalog');
        }
      }
    }
  }
  const { control } = trusted.registry;
  if (
    provenance.trust !== 'trusted_control' ||
    provenance.source_label !== control.source_label ||
    provenance.producer_revision !== control.producer_revision ||
    provenance.resource_revision !== null
  ) {
    reasons.add('provenance');
  }
}
