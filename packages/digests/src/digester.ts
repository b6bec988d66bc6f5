import { bytesToHex } from '@noble/hashes/utils.js';
import type { JsonValue, ModelResult, Sha256Hex, ToolContract } from '@toolseal/contracts';
import { CanonicalizationError } from './canonicalization-error.js';
import { canonicalize, DEFAULT_MAX_DEPTH, type CanonicalizeOptions } from './canonicalize.js';
import { nobleBackend, type HashBackend } from './hash-backend.js';
import { canonicalStringOrUndefined, isWellFormedText } from './is-well-formed-text.js';
import { refuseUnknownNames } from './refuse-unknown-names.js';
import { uint8ArrayView } from './uint8-array-view.js';

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
  /**
   * SHA-256 implementation. Default `nobleBackend`; `@toolseal/digests/node` has `nodeCryptoBackend`.
   * One without the functions `sha256` and `hmacSha256` (or with a text shortcut that is not a
   * function) throws a `TypeError` in `createDigester`.
   */
  backend?: HashBackend;
  /**
   * Secret key, at least `MIN_KEY_BYTES` bytes. When set, every digest is HMAC-SHA-256 under it
   * (keyed mode), for deployments whose audit storage is not trusted: without the key, nobody can
   * forge a matching digest or test guesses of a principal against `principal_ref`.
   * The bytes are copied (into memory of the digester's own, also for a Node `Buffer`): a caller may
   * zero its array after `createDigester` returns. Any genuine Uint8Array (a `Buffer`, one from
   * another realm); its length and bytes are read through the typed-array intrinsics, so a subclass
   * whose `length` or `buffer` getters lie is keyed with the bytes it really holds, and refused when
   * they are fewer than `MIN_KEY_BYTES` (an empty key included). Only an absent `key` means
   * unkeyed: `key: undefined` (a key that failed to load) throws a `TypeError`.
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
  /**
   * True in keyed (HMAC) mode, `createDigester({ key })`. Lets a host check that the components it
   * wires together (its dispatcher, its audit store) use the same kind of digester: a keyed
   * dispatcher over an unkeyed audit chain loses the HMAC protection without any error.
   */
  readonly keyed: boolean;
  /**
   * SHA-256 (or HMAC) over the UTF-8 bytes of `text`. Throws `lone_surrogate` for text UTF-8 cannot
   * encode. Any text: given the canonical text of a tagged object it gives that object's digest,
   * the digester's own kinds included, so a digester is handed to trusted code only.
   */
  digestText(text: string): Sha256Hex;
  /**
   * Digest of `canonicalize({ domain, ...fields })`, for tags other than the digester's own:
   * a `DIGEST_DOMAINS` tag throws a `TypeError`, so this never reproduces a principal reference,
   * request, result or call binding digest (`digestText` of the same canonical text would). `fields` must be a plain object without a `domain`
   * member; a symbol-keyed or non-enumerable member throws `CanonicalizationError`
   * (`unsupported_type`), as `canonicalize` refuses such an object, rather than being left out.
   * Each member is read exactly once (a getter is invoked once, and the digest covers the value it
   * gave); a member a getter deletes before it is read throws `unsupported_type`.
   */
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

// canonicalize({ domain: 'toolseal.result.v1', model_result: m }): "domain" sorts before
// "model_result", so the canonical text is this prefix, canonicalize(m), and a closing brace.
const RESULT_PREFIX = `{"domain":${JSON.stringify(DIGEST_DOMAINS.result)},"model_result":`;

// The fixed-shape digests are written from templates whose members are already in RFC 8785 order
// (UTF-16 code units: "arguments" < "domain" < "effect_revision" < ...), with every string member
// written by `JSON.stringify`, which is exactly the RFC 8785 string form for well-formed text.
// When a member is anything but a well-formed string (a caller bug the types forbid), the digest
// is computed through `canonicalize` instead, which gives the same text or throws the precise
// error. `digest-vectors.test.ts` and the properties of `digest-templates.test.ts` check the texts
// byte-identical.
const PRINCIPAL_PREFIX = `{"domain":${JSON.stringify(DIGEST_DOMAINS.principalRef)},"subject_id":`;
const REQUEST_DOMAIN = `,"domain":${JSON.stringify(DIGEST_DOMAINS.request)},"effect_revision":`;
const CALL_BINDING_DOMAIN = `,"domain":${JSON.stringify(DIGEST_DOMAINS.callBinding)},"idempotency_key":`;
/**
 * The deepest arguments `requestDigest` can digest (`DEFAULT_MAX_DEPTH` less the tagged object
 * around them): deeper arguments have no request digest, so a host must not admit them (the
 * dispatcher refuses `argumentLimits.maxDepth` above it at start-up).
 */
export const MAX_ARGUMENTS_DEPTH = DEFAULT_MAX_DEPTH - 1;

/** `canonicalize`'s options for the arguments of a request: one object, not one per call. */
const ARGUMENTS_OPTIONS: CanonicalizeOptions = Object.freeze({ maxDepth: MAX_ARGUMENTS_DEPTH });

/**
 * Whether `domain` is the tag of one of the digester's own digests (`DIGEST_DOMAINS`), which only
 * those digests may use: `digestTagged(DIGEST_DOMAINS.result, { model_result })` would otherwise be
 * a result digest made by any caller, of anything. Different strings always give different
 * canonical texts, so comparing the tag exactly is enough.
 */
function isReservedDomain(domain: string): boolean {
  return (
    domain === DIGEST_DOMAINS.principalRef ||
    domain === DIGEST_DOMAINS.request ||
    domain === DIGEST_DOMAINS.result ||
    domain === DIGEST_DOMAINS.callBinding
  );
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The canonical text of `{ domain, ...fields }`, every member of `fields` read exactly once: the
 * names are taken once, each value is read once in RFC 8785 order, and the text is written from the
 * values read. Directly while every member is a well-formed string (the audit chain link, most
 * custom tags); otherwise through `canonicalize`, over a record of the values already read, never
 * over `fields` again (a getter that answered differently on a second read would decide the digest).
 * Throws `unsupported_type` for a symbol-keyed or non-enumerable member of `fields`, whatever its
 * value, and for a member deleted (by a getter) before it was read.
 */
function canonicalTagged(domain: string, fields: Record<string, unknown>): string {
  const keys = Object.keys(fields);
  // Symbol-keyed or non-enumerable members: refused as `canonicalize` refuses them in any object.
  // A member the caller holds but the digest leaves out would bind less than the caller's object.
  if (Object.getOwnPropertySymbols(fields).length !== 0 || Object.getOwnPropertyNames(fields).length !== keys.length) {
    throw new CanonicalizationError('unsupported_type', '');
  }
  keys.push('domain');
  // The default sort compares UTF-16 code units, the RFC 8785 §3.2.3 order.
  keys.sort();
  const values: unknown[] = [];
  let text: string | undefined = '{';
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const value = key === 'domain' ? domain : fields[key];
    values.push(value);
    if (text === undefined) continue;
    const name = canonicalStringOrUndefined(key);
    const valueText = canonicalStringOrUndefined(value);
    text = name === undefined || valueText === undefined ? undefined : text + (index === 0 ? '' : ',') + name + ':' + valueText;
  }
  if (text !== undefined) return text + '}';
  const snapshot: Record<string, unknown> = {};
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    // Assigned, `__proto__` would set the prototype: defined, it is an own member, as the spread
    // `{ domain, ...fields }` made it. (A record without a prototype measured 20% slower here.)
    if (key === '__proto__') {
      Object.defineProperty(snapshot, key, { value: values[index], enumerable: true, writable: true, configurable: true });
    } else {
      snapshot[key] = values[index];
    }
  }
  return canonicalize(snapshot);
}

function canonicalPrincipal(principal: PrincipalRefInput): string {
  const subject = canonicalStringOrUndefined(principal.subject_id);
  const tenant = canonicalStringOrUndefined(principal.tenant_id);
  if (subject === undefined || tenant === undefined) {
    return canonicalize({ domain: DIGEST_DOMAINS.principalRef, tenant_id: principal.tenant_id, subject_id: principal.subject_id });
  }
  return PRINCIPAL_PREFIX + subject + ',"tenant_id":' + tenant + '}';
}

function canonicalRequestGeneral(input: RequestDigestInput): string {
  return canonicalize({
    domain: DIGEST_DOMAINS.request,
    tenant_id: input.tenant_id,
    subject_id: input.subject_id,
    tool_name: input.tool_name,
    arguments: input.arguments,
    input_revision: input.input_revision,
    output_revision: input.output_revision,
    effect_revision: input.effect_revision,
  });
}

// A text assembled from pieces is a tree of them until the engine copies it into one string, which
// it does before hashing (about 30 ns per piece). A memo text that is used again is copied once,
// on its first reuse (not when it is written: traffic whose members change on every call would pay
// for the copy and never use it), so every text built around it later holds it as a single piece
// (measured 1.68 against 0.90 µs to hash a 750-character call binding around a 32-piece tail).
// Any UTF-16 text survives the trip.
const NodeBuffer: typeof Buffer | undefined = typeof globalThis.Buffer === 'function' ? globalThis.Buffer : undefined;
function oneString(text: string): string {
  return NodeBuffer === undefined ? text : NodeBuffer.from(text, 'utf16le').toString('utf16le');
}

/** The text of a memo on its reuse: copied into one string the first time. */
function reused(memo: { text: string; reused: boolean }): string {
  if (!memo.reused) {
    memo.text = oneString(memo.text);
    memo.reused = true;
  }
  return memo.text;
}

/**
 * The members of a request text after its arguments (domain, revisions, principal, tool) for the
 * latest request written: the same for every call of one principal to one tool, so reused while
 * all six strings are equal to the last ones (compared with `===`, by value).
 */
interface RequestTail {
  readonly tenant: string;
  readonly subject: string;
  readonly tool: string;
  readonly inputRevision: string;
  readonly outputRevision: string;
  readonly effectRevision: string;
  text: string;
  reused: boolean;
}
let lastRequestTail: RequestTail | null = null;

function requestTail(
  tenant: unknown,
  subject: unknown,
  tool: unknown,
  inputRevision: unknown,
  outputRevision: unknown,
  effectRevision: unknown,
): string | undefined {
  const last = lastRequestTail;
  if (
    last !== null &&
    last.tenant === tenant &&
    last.subject === subject &&
    last.tool === tool &&
    last.inputRevision === inputRevision &&
    last.outputRevision === outputRevision &&
    last.effectRevision === effectRevision
  ) {
    return reused(last);
  }
  const tenantText = canonicalStringOrUndefined(tenant);
  const subjectText = canonicalStringOrUndefined(subject);
  const toolText = canonicalStringOrUndefined(tool);
  const inputText = canonicalStringOrUndefined(inputRevision);
  const outputText = canonicalStringOrUndefined(outputRevision);
  const effectText = canonicalStringOrUndefined(effectRevision);
  if (
    tenantText === undefined ||
    subjectText === undefined ||
    toolText === undefined ||
    inputText === undefined ||
    outputText === undefined ||
    effectText === undefined
  ) {
    return undefined;
  }
  const text =
    REQUEST_DOMAIN +
    effectText +
    ',"input_revision":' +
    inputText +
    ',"output_revision":' +
    outputText +
    ',"subject_id":' +
    subjectText +
    ',"tenant_id":' +
    tenantText +
    ',"tool_name":' +
    toolText +
    '}';
  // Every member was a string (canonicalStringOrUndefined said so).
  lastRequestTail = {
    tenant: tenant as string,
    subject: subject as string,
    tool: tool as string,
    inputRevision: inputRevision as string,
    outputRevision: outputRevision as string,
    effectRevision: effectRevision as string,
    text,
    reused: false,
  };
  return text;
}

function canonicalRequest(input: RequestDigestInput): string {
  // Each member is read once: the text is written from exactly the values compared.
  const tail = requestTail(
    input.tenant_id,
    input.subject_id,
    input.tool_name,
    input.input_revision,
    input.output_revision,
    input.effect_revision,
  );
  if (tail === undefined) return canonicalRequestGeneral(input);
  let argumentsText: string;
  try {
    argumentsText = canonicalize(input.arguments, ARGUMENTS_OPTIONS);
  } catch (error) {
    // The general path throws the same failure with its path inside the tagged object.
    if (CanonicalizationError.isInstance(error)) return canonicalRequestGeneral(input);
    throw error;
  }
  return '{"arguments":' + argumentsText + tail;
}

function canonicalCallBindingGeneral(input: CallBindingDigestInput): string {
  const contract = input.tool_contract;
  return canonicalize({
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
  });
}

/**
 * The `tool_contract` member of a call binding text and the closing braces, for the latest contract
 * written: the same for every call of one tool, so reused while all eight members are equal to the
 * last ones (compared with `===`, by value). Likewise the adapter's members that open the text.
 */
interface ContractTail {
  readonly effect: string;
  readonly effectRevision: string;
  readonly handlerRevision: string;
  readonly inputRevision: string;
  readonly outputRevision: string;
  readonly policyRevision: string;
  readonly producerRevision: string;
  readonly toolName: string;
  text: string;
  reused: boolean;
}
let lastContractTail: ContractTail | null = null;
let lastAdapterHead: { readonly adapterRevision: string; readonly apiFamily: string; text: string; reused: boolean } | null = null;

function contractTail(contract: ToolContract): string | undefined {
  // Each member is read once: the text is written from exactly the values compared.
  const effect: unknown = contract.effect;
  const effectRevision: unknown = contract.effect_revision;
  const handlerRevision: unknown = contract.handler_revision;
  const inputRevision: unknown = contract.input_revision;
  const outputRevision: unknown = contract.output_revision;
  const policyRevision: unknown = contract.policy_revision;
  const producerRevision: unknown = contract.producer_revision;
  const toolName: unknown = contract.tool_name;
  const last = lastContractTail;
  if (
    last !== null &&
    last.effect === effect &&
    last.effectRevision === effectRevision &&
    last.handlerRevision === handlerRevision &&
    last.inputRevision === inputRevision &&
    last.outputRevision === outputRevision &&
    last.policyRevision === policyRevision &&
    last.producerRevision === producerRevision &&
    last.toolName === toolName
  ) {
    return reused(last);
  }
  const texts = [effect, effectRevision, handlerRevision, inputRevision, outputRevision, policyRevision, producerRevision, toolName].map(
    canonicalStringOrUndefined,
  );
  if (texts.includes(undefined)) return undefined;
  const [effectText, effectRevisionText, handlerText, inputText, outputText, policyText, producerText, toolText] = texts as string[];
  const text =
    `,"tool_contract":{"effect":${effectText},"effect_revision":${effectRevisionText},"handler_revision":${handlerText}` +
    `,"input_revision":${inputText},"output_revision":${outputText},"policy_revision":${policyText}` +
    `,"producer_revision":${producerText},"tool_name":${toolText}}}`;
  // Every member was a string (canonicalStringOrUndefined said so).
  lastContractTail = {
    effect: effect as string,
    effectRevision: effectRevision as string,
    handlerRevision: handlerRevision as string,
    inputRevision: inputRevision as string,
    outputRevision: outputRevision as string,
    policyRevision: policyRevision as string,
    producerRevision: producerRevision as string,
    toolName: toolName as string,
    text,
    reused: false,
  };
  return text;
}

function adapterHead(adapterRevision: unknown, apiFamily: unknown): string | undefined {
  const last = lastAdapterHead;
  if (last !== null && last.adapterRevision === adapterRevision && last.apiFamily === apiFamily) return reused(last);
  const adapterText = canonicalStringOrUndefined(adapterRevision);
  const apiFamilyText = canonicalStringOrUndefined(apiFamily);
  if (adapterText === undefined || apiFamilyText === undefined) return undefined;
  const text = `{"adapter_revision":${adapterText},"api_family":${apiFamilyText},"call_id":`;
  lastAdapterHead = { adapterRevision: adapterRevision as string, apiFamily: apiFamily as string, text, reused: false };
  return text;
}

function canonicalCallBinding(input: CallBindingDigestInput): string {
  const head = adapterHead(input.adapter_revision, input.api_family);
  const callId = canonicalStringOrUndefined(input.call_id);
  const idempotencyKey: unknown = input.idempotency_key;
  const idempotencyKeyText = idempotencyKey === null ? 'null' : canonicalStringOrUndefined(idempotencyKey);
  const operationId = canonicalStringOrUndefined(input.operation_id);
  const provider = canonicalStringOrUndefined(input.provider);
  const requestSha256 = canonicalStringOrUndefined(input.request_sha256);
  const responseId = canonicalStringOrUndefined(input.response_id);
  const resultSha256 = canonicalStringOrUndefined(input.result_sha256);
  const tail = contractTail(input.tool_contract);
  if (
    head === undefined ||
    callId === undefined ||
    idempotencyKeyText === undefined ||
    operationId === undefined ||
    provider === undefined ||
    requestSha256 === undefined ||
    responseId === undefined ||
    resultSha256 === undefined ||
    tail === undefined
  ) {
    return canonicalCallBindingGeneral(input);
  }
  return (
    head +
    callId +
    CALL_BINDING_DOMAIN +
    idempotencyKeyText +
    ',"operation_id":' +
    operationId +
    ',"provider":' +
    provider +
    ',"request_sha256":' +
    requestSha256 +
    ',"response_id":' +
    responseId +
    ',"result_sha256":' +
    resultSha256 +
    tail
  );
}

/** The members `DigesterOptions` has: any other is refused, never ignored. */
const DIGESTER_OPTION_NAMES: readonly string[] = ['backend', 'key'];

/**
 * Creates a digester. Keyed mode (`options.key`) turns every digest into HMAC-SHA-256; a key
 * shorter than `MIN_KEY_BYTES` is a misconfiguration and throws here, at start-up. So do options
 * that could only give a digester other than the one asked for (`TypeError`): options that are
 * neither absent nor an object, an option name other than `backend` and `key` (`kee` would give
 * an unkeyed digester), `key: undefined` (only an absent `key` means unkeyed, so a key that failed
 * to load is not taken for "no key"), and a `backend` without the `HashBackend` functions.
 */
export function createDigester(options?: DigesterOptions): Digester {
  const { backend, key } = readDigesterOptions(options);

  // For text free of lone surrogates (canonicalize output, checked caller text): the backend's
  // text shortcut when it has one, else SHA-256 or HMAC over the TextEncoder bytes.
  let hashText: (text: string) => Sha256Hex;
  if (key === undefined) {
    const sha256TextHex = backend.sha256TextHex;
    hashText =
      sha256TextHex === undefined
        ? (text) => bytesToHex(backend.sha256(encoder.encode(text)))
        : (text) => sha256TextHex.call(backend, text);
  } else {
    const hmacSha256TextHex = backend.hmacSha256TextHex;
    hashText =
      hmacSha256TextHex === undefined
        ? (text) => bytesToHex(backend.hmacSha256(key, encoder.encode(text)))
        : (text) => hmacSha256TextHex.call(backend, key, text);
  }

  // For text from the caller: TextEncoder would silently turn a lone surrogate into U+FFFD,
  // making two different strings hash alike.
  const digestText = (text: string): Sha256Hex => {
    if (typeof text !== 'string') throw new TypeError('digestText: text must be a string');
    if (!isWellFormedText(text)) throw new CanonicalizationError('lone_surrogate', '');
    return hashText(text);
  };

  const digestTagged = (domain: string, fields: Record<string, unknown>): Sha256Hex => {
    if (typeof domain !== 'string' || domain.length === 0) {
      throw new TypeError('digestTagged: domain must be a non-empty string');
    }
    if (isReservedDomain(domain)) {
      throw new TypeError(`digestTagged: domain ${JSON.stringify(domain)} is reserved for the digester's own digests`);
    }
    if (!isPlainRecord(fields)) throw new CanonicalizationError('unsupported_type', '');
    if (Object.hasOwn(fields, 'domain')) throw new TypeError('digestTagged: fields must not contain "domain"');
    return hashText(canonicalTagged(domain, fields));
  };

  return Object.freeze({
    keyed: key !== undefined,
    digestText,
    digestTagged,
    principalRef: (principal: PrincipalRefInput): Sha256Hex => hashText(canonicalPrincipal(principal)),
    requestDigest: (input: RequestDigestInput): Sha256Hex => hashText(canonicalRequest(input)),
    resultDigest: (modelResult: ModelResult): Sha256Hex => hashText(RESULT_PREFIX + canonicalize(modelResult) + '}'),
    resultDigestFromCanonical: (canonicalModelResult: string): Sha256Hex =>
      digestText(RESULT_PREFIX + canonicalModelResult + '}'),
    callBindingDigest: (input: CallBindingDigestInput): Sha256Hex => hashText(canonicalCallBinding(input)),
  });
}

/**
 * The backend and the copied key of `options`, each member read once. Misconfigurations throw a
 * `TypeError` naming the option: a digester built from them would be unkeyed where a key was
 * meant (`{ kee }`, `{ key: undefined }` from a key that failed to load), or fail at the first
 * digest instead of at start-up (a backend without its functions).
 */
function readDigesterOptions(options: unknown): { backend: HashBackend; key: Uint8Array | undefined } {
  if (options === undefined) return { backend: nobleBackend, key: undefined };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`createDigester: options must be an object, got ${describeValue(options)}`);
  }
  refuseUnknownNames(options, DIGESTER_OPTION_NAMES, 'createDigester');
  const given = options as { backend?: unknown; key?: unknown };
  const backendOption = given.backend;
  // An explicit `backend: undefined` takes the default, as an absent one does: no backend choice
  // weakens a digest, unlike a key left out.
  const backend = backendOption === undefined ? nobleBackend : checkBackend(backendOption);
  // The key is read once, and that value alone decides keyed or unkeyed: a separate `'key' in`
  // test (a Proxy's `has` trap, which may answer false for a target that holds a key) could make
  // an unkeyed digester of options that hold one.
  const key = given.key;
  if (key !== undefined) return { backend, key: copyKey(key) };
  if (Object.keys(options).includes('key')) {
    throw new TypeError('createDigester: key is undefined; leave key out for an unkeyed digester, or pass the key bytes');
  }
  return { backend, key: undefined };
}

/**
 * `backend` when it has the functions of `HashBackend`: `sha256` and `hmacSha256`, and the text
 * shortcuts when present (a member other than a function would be called at the first digest).
 * `name` is a label for logs only, and is not checked.
 */
function checkBackend(backend: unknown): HashBackend {
  if (typeof backend !== 'object' || backend === null) {
    throw new TypeError(`createDigester: backend must be a HashBackend object, got ${describeValue(backend)}`);
  }
  const members = backend as Record<string, unknown>;
  for (const name of ['sha256', 'hmacSha256']) {
    if (typeof members[name] !== 'function') throw new TypeError(`createDigester: backend.${name} must be a function`);
  }
  for (const name of ['sha256TextHex', 'hmacSha256TextHex']) {
    const member = members[name];
    if (member !== undefined && typeof member !== 'function') {
      throw new TypeError(`createDigester: backend.${name} must be a function when present`);
    }
  }
  return backend as HashBackend;
}

/** What a misconfigured option was, for a message: `null`, `an array`, `a string`. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' || type === 'undefined' ? type : `a ${type}`;
}

function copyKey(key: unknown): Uint8Array {
  // Length and bytes through the typed-array intrinsics: a subclass's `length` getter cannot pass
  // an empty key off as a long one (HMAC under an empty key, with `keyed` true).
  const view = uint8ArrayView(key);
  if (view === undefined) throw new TypeError('createDigester: key must be a Uint8Array');
  if (view.length < MIN_KEY_BYTES) {
    throw new RangeError(`createDigester: key must be at least ${MIN_KEY_BYTES} bytes, got ${view.length}`);
  }
  // A copy in memory of its own: a view of the caller's bytes (what `Buffer.prototype.slice`
  // returns) would be zeroed here too by a host zeroing its key after start-up.
  const copy = new Uint8Array(view.length);
  copy.set(view);
  return copy;
}
