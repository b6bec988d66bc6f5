import { bytesToHex } from '@noble/hashes/utils.js';
import type { JsonValue, ModelResult, Sha256Hex, ToolContract } from '@toolseal/contracts';
import { CanonicalizationError } from './canonicalization-error.js';
import { canonicalize } from './canonicalize.js';
import { nobleBackend, type HashBackend } from './hash-backend.js';

/**
 * The domain tag of each digest kind. Every digest hashes the canonical JSON of an object whose
 * `domain` member is one of these, so no digest of one kind can ever equal a digest of another.
 */
export const DIGEST_DOMAINS = {
  principalRef: 'toolseal.principal_ref.v1',
  request: 'toolseal.request.v1',
  result: 'toolseal.result.v1',
  callBinding: 'toolseal.call_binding.v1',
} as const;

/** Smallest HMAC key `createDigester` accepts, in bytes (the SHA-256 output length). */
export const MIN_KEY_BYTES = 32;

/** Options of `createDigester`. */
export interface DigesterOptions {
  /** SHA-256 implementation. Default `nobleBackend`; `@toolseal/digests/node` has `nodeCryptoBackend`. */
  backend?: HashBackend;
  /**
   * Secret key, at least `MIN_KEY_BYTES` bytes. When set, every digest is HMAC-SHA-256 under it
   * (keyed mode), for deployments whose audit storage is not trusted: without the key, nobody can
   * forge a matching digest or test guesses of a principal against `principal_ref`.
   * The bytes are copied.
   */
  key?: Uint8Array;
}

/** Input of `Digester.principalRef`. Extra members (such as `roles`) are ignored. */
export interface PrincipalRefInput {
  /** The authenticated tenant. */
  tenant_id: string;
  /** The authenticated subject within the tenant. */
  subject_id: string;
}

/**
 * Input of `Digester.requestDigest`: the business intent of a call. Deliberately without the
 * call id and the idempotency key, so the same intent matches its idempotency record under a new
 * call id (specification: "request_sha256 excludes the temporary call ID").
 */
export interface RequestDigestInput {
  /** The trusted tenant. */
  tenant_id: string;
  /** The trusted subject. */
  subject_id: string;
  /** The registered tool name. */
  tool_name: string;
  /** The arguments after the guard and the input contract accepted them. */
  arguments: JsonValue;
  /** `ToolContract.input_revision`. */
  input_revision: string;
  /** `ToolContract.output_revision`. */
  output_revision: string;
  /** `ToolContract.effect_revision`. */
  effect_revision: string;
}

/**
 * Input of `Digester.callBindingDigest`: one execution of a call in one provider turn under one
 * tool contract, bound to the other two digests.
 */
export interface CallBindingDigestInput {
  /** Provider name, e.g. `openai`. */
  provider: string;
  /** API family, e.g. `responses`: part of the provider context. */
  api_family: string;
  /** The provider's response (turn) id. */
  response_id: string;
  /** The provider's call id. */
  call_id: string;
  /** The dispatcher's id for this execution attempt. */
  operation_id: string;
  /** The idempotency key of a write; `null` for reads. */
  idempotency_key: string | null;
  /** Revision of the adapter that parsed the call and serializes the result. */
  adapter_revision: string;
  /** Every field of the tool contract: name, effect and all six revisions. */
  tool_contract: ToolContract;
  /** `requestDigest` of the call. */
  request_sha256: Sha256Hex;
  /** `resultDigest` of the model result. */
  result_sha256: Sha256Hex;
}

/** Computes the domain-separated digests of the specification, plain (SHA-256) or keyed (HMAC-SHA-256). */
export interface Digester {
  /** True in keyed (HMAC) mode. */
  readonly keyed: boolean;
  /** SHA-256 (or HMAC) over the UTF-8 bytes of `text`. Throws `lone_surrogate` for text UTF-8 cannot encode. */
  digestText(text: string): Sha256Hex;
  /** Digest of `canonicalize({ domain, ...fields })`. `fields` must be a plain object without a `domain` member. */
  digestTagged(domain: string, fields: Record<string, unknown>): Sha256Hex;
  /** `principal_ref`: a one-way reference to tenant and subject (`toolseal.principal_ref.v1`). */
  principalRef(principal: PrincipalRefInput): Sha256Hex;
  /** `request_sha256` = H(tenant, subject, tool, arguments, inputRev, outputRev, effectRev) (`toolseal.request.v1`). */
  requestDigest(input: RequestDigestInput): Sha256Hex;
  /** `result_sha256` = H(model_result) (`toolseal.result.v1`). */
  resultDigest(modelResult: ModelResult): Sha256Hex;
  /**
   * The same value as `resultDigest(modelResult)` when `canonicalModelResult` is
   * `canonicalize(modelResult)`, without canonicalizing again. The text is trusted to be that
   * canonical form; any other text simply gives a digest that will not verify.
   */
  resultDigestFromCanonical(canonicalModelResult: string): Sha256Hex;
  /**
   * `call_binding_sha256` = H(provider, api family, response, call, operation, idempotency key,
   * adapter, tool contract, request digest, result digest) (`toolseal.call_binding.v1`).
   */
  callBindingDigest(input: CallBindingDigestInput): Sha256Hex;
}

const encoder = new TextEncoder();
// In unicode mode a valid surrogate pair is one astral code point, so only lone surrogates match.
const LONE_SURROGATE = /\p{Cs}/u;

// canonicalize({ domain: 'toolseal.result.v1', model_result: m }): "domain" sorts before
// "model_result", so the canonical text is this prefix, canonicalize(m), and a closing brace.
const RESULT_PREFIX = `{"domain":${JSON.stringify(DIGEST_DOMAINS.result)},"model_result":`;

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Creates a digester. Keyed mode (`options.key`) turns every digest into HMAC-SHA-256; a key
 * shorter than `MIN_KEY_BYTES` is a misconfiguration and throws here, at start-up.
 */
export function createDigester(options: DigesterOptions = {}): Digester {
  const backend = options.backend ?? nobleBackend;
  const key = options.key === undefined ? undefined : copyKey(options.key);

  const hashBytes =
    key === undefined ? (data: Uint8Array) => backend.sha256(data) : (data: Uint8Array) => backend.hmacSha256(key, data);

  // For text canonicalize produced: already free of lone surrogates.
  const hashText = (text: string): Sha256Hex => bytesToHex(hashBytes(encoder.encode(text)));

  // For text from the caller: TextEncoder would silently turn a lone surrogate into U+FFFD,
  // making two different strings hash alike.
  const digestText = (text: string): Sha256Hex => {
    if (LONE_SURROGATE.test(text)) throw new CanonicalizationError('lone_surrogate', '');
    return hashText(text);
  };

  const digestTagged = (domain: string, fields: Record<string, unknown>): Sha256Hex => {
    if (typeof domain !== 'string' || domain.length === 0) {
      throw new TypeError('digestTagged: domain must be a non-empty string');
    }
    if (!isPlainRecord(fields)) throw new CanonicalizationError('unsupported_type', '');
    if (Object.hasOwn(fields, 'domain')) throw new TypeError('digestTagged: fields must not contain "domain"');
    return hashText(canonicalize({ domain, ...fields }));
  };

  const resultDigestFromCanonical = (canonicalModelResult: string): Sha256Hex =>
    digestText(RESULT_PREFIX + canonicalModelResult + '}');

  return Object.freeze({
    keyed: key !== undefined,
    digestText,
    digestTagged,
    principalRef: (principal: PrincipalRefInput): Sha256Hex =>
      hashText(
        canonicalize({
          domain: DIGEST_DOMAINS.principalRef,
          tenant_id: principal.tenant_id,
          subject_id: principal.subject_id,
        }),
      ),
    requestDigest: (input: RequestDigestInput): Sha256Hex =>
      hashText(
        canonicalize({
          domain: DIGEST_DOMAINS.request,
          tenant_id: input.tenant_id,
          subject_id: input.subject_id,
          tool_name: input.tool_name,
          arguments: input.arguments,
          input_revision: input.input_revision,
          output_revision: input.output_revision,
          effect_revision: input.effect_revision,
        }),
      ),
    resultDigest: (modelResult: ModelResult): Sha256Hex => hashText(RESULT_PREFIX + canonicalize(modelResult) + '}'),
    resultDigestFromCanonical,
    callBindingDigest: (input: CallBindingDigestInput): Sha256Hex => {
      const contract = input.tool_contract;
      return hashText(
        canonicalize({
          domain: DIGEST_DOMAINS.callBinding,
          provider: input.provider,
          api_family: input.api_family,
          response_id: input.response_id,
          call_id: input.call_id,
          operation_id: input.operation_id,
          idempotency_key: input.idempotency_key,
          adapter_revision: input.adapter_revision,
          // Every field of ToolContract, picked by name: an extra member never changes the digest,
          // a missing one throws.
          tool_contract: {
            tool_name: contract.tool_name,
            effect: contract.effect,
            input_revision: contract.input_revision,
            output_revision: contract.output_revision,
            effect_revision: contract.effect_revision,
            handler_revision: contract.handler_revision,
            producer_revision: contract.producer_revision,
            policy_revision: contract.policy_revision,
          },
          request_sha256: input.request_sha256,
          result_sha256: input.result_sha256,
        }),
      );
    },
  });
}

function copyKey(key: Uint8Array): Uint8Array {
  if (!(key instanceof Uint8Array)) throw new TypeError('createDigester: key must be a Uint8Array');
  if (key.length < MIN_KEY_BYTES) {
    throw new RangeError(`createDigester: key must be at least ${MIN_KEY_BYTES} bytes, got ${key.length}`);
  }
  return key.slice();
}
