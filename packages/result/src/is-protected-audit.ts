import { PROTECTED_AUDIT_SCHEMA_VERSION, type ProtectedAudit } from '@toolseal/contracts';
import { isSha256Hex } from '@toolseal/digests';
import { CONTRACT_KEY_LIST, CONTRACT_REVISION_LIST, PROVIDER_CONTEXT_KEY_LIST } from './contract-keys.js';

// `PROTECTED_AUDIT_SCHEMA` written out by hand: the same verdict on every JSON value (a test runs
// both on every single-leaf change of the sealed fixtures, at every length bound and on random
// values), in about half the time the compiled schema takes on a sealed package (0.62 against
// 1.2 µs; counting code points for every `maxLength` was a third of it, and a length in UTF-16
// units decides it here without a loop unless it is within a factor of two of the bound).
// The patterns are the schema's, without the `u` flag Ajv adds: their classes are ASCII only, so
// no string matches differently (an astral character or a surrogate matches neither way).

const PROVIDER = /^[a-z][a-z0-9_-]{0,31}$/;
const API_FAMILY = /^[a-z][a-z0-9_.-]{0,63}$/;
const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const REASON = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_REDACTIONS = 64;

const TOP_KEYS = ['schema_version', 'principal_ref', 'provider_context', 'tool_contract', 'downstream', 'binding', 'redactions'];
const DOWNSTREAM_KEYS = ['operation_id', 'idempotency_key', 'receipt', 'status_ref'];
const BINDING_KEYS = ['request_sha256', 'result_sha256', 'call_binding_sha256'];
const REDACTION_KEYS = ['path', 'reason'];

type Record = { readonly [key: string]: unknown };

/** A JSON object (not an array) whose own enumerable keys are exactly `keys`. */
function hasExactly(value: unknown, keys: readonly string[]): value is Record {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.keys(value).length !== keys.length) return false;
  for (const key of keys) if (!Object.hasOwn(value, key)) return false;
  return true;
}

function codePoints(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    count++;
    // A high surrogate followed by a low one is a single code point (Ajv's ucs2length rule).
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if ((next & 0xfc00) === 0xdc00) index++;
    }
  }
  return count;
}

/** A string of `min` to `max` code points (JSON Schema lengths): a code point is 1 or 2 units. */
function isStringOfLength(value: unknown, min: number, max: number): value is string {
  if (typeof value !== 'string') return false;
  const units = value.length;
  if (units < min || units > 2 * max) return false;
  if (units >= 2 * min && units <= max) return true;
  const count = codePoints(value);
  return count >= min && count <= max;
}

const isRevision = (value: unknown): boolean => isStringOfLength(value, 1, 64);
const isNullOr = (value: unknown, min: number, max: number): boolean => value === null || isStringOfLength(value, min, max);
/** A downstream `receipt` or `status_ref`: `null`, or 1 to 256 characters without NUL. */
const isReference = (value: unknown): boolean => value === null || (isStringOfLength(value, 1, 256) && !value.includes('\u0000'));
const matches = (value: unknown, pattern: RegExp): boolean => typeof value === 'string' && pattern.test(value);

/** The members of a call that `protected_audit.provider_context` copies. */
export interface ProviderContextFields {
  readonly provider: string;
  readonly api_family: string;
  readonly response_id: string;
  readonly call_id: string;
  readonly adapter_revision: string;
}

/** The members of a seal's trusted call that `provider_context` and `downstream` copy. */
export interface SealedCallFields extends ProviderContextFields {
  readonly operation_id: string;
  readonly idempotency_key: string | null;
}

/**
 * The first member of `call` that `PROTECTED_AUDIT_SCHEMA` would refuse in `provider_context`
 * (the `provider` and `api_family` patterns, ids of 1 to 256 code points, a revision of 1 to 64),
 * or `null`. A dispatcher checks a parsed call with it before anything runs, as `sealResult`
 * would refuse the call only after the handler.
 */
export function providerContextFieldOutsideSchema(call: ProviderContextFields): keyof ProviderContextFields | null {
  if (!matches(call.provider, PROVIDER)) return 'provider';
  if (!matches(call.api_family, API_FAMILY)) return 'api_family';
  if (!isStringOfLength(call.response_id, 1, 256)) return 'response_id';
  if (!isStringOfLength(call.call_id, 1, 256)) return 'call_id';
  if (!isRevision(call.adapter_revision)) return 'adapter_revision';
  return null;
}

/**
 * The first member of `call` that `PROTECTED_AUDIT_SCHEMA` would refuse once copied into the
 * protected projection, or `null`: `sealResult` throws for such a call rather than seal a package
 * its own verification calls malformed.
 */
export function callFieldOutsideSchema(call: SealedCallFields): keyof SealedCallFields | null {
  const outside = providerContextFieldOutsideSchema(call);
  if (outside !== null) return outside;
  if (!isStringOfLength(call.operation_id, 1, 128)) return 'operation_id';
  if (!isNullOr(call.idempotency_key, 1, 256)) return 'idempotency_key';
  return null;
}

/** True when `value` satisfies `PROTECTED_AUDIT_SCHEMA`. */
export function isProtectedAudit(value: unknown): value is ProtectedAudit {
  if (!hasExactly(value, TOP_KEYS)) return false;
  if (value['schema_version'] !== PROTECTED_AUDIT_SCHEMA_VERSION || !isSha256Hex(value['principal_ref'])) return false;

  const context = value['provider_context'];
  // The same rules sealing and the dispatcher apply to a call (each check tests the value's type).
  if (!hasExactly(context, PROVIDER_CONTEXT_KEY_LIST) || providerContextFieldOutsideSchema(context as unknown as ProviderContextFields) !== null) {
    return false;
  }

  const contract = value['tool_contract'];
  if (!hasExactly(contract, CONTRACT_KEY_LIST) || !matches(contract['tool_name'], TOOL_NAME)) return false;
  if (contract['effect'] !== 'read' && contract['effect'] !== 'write') return false;
  for (const revision of CONTRACT_REVISION_LIST) if (!isRevision(contract[revision])) return false;

  const downstream = value['downstream'];
  if (
    !hasExactly(downstream, DOWNSTREAM_KEYS) ||
    !isStringOfLength(downstream['operation_id'], 1, 128) ||
    !isNullOr(downstream['idempotency_key'], 1, 256) ||
    !isReference(downstream['receipt']) ||
    !isReference(downstream['status_ref'])
  ) {
    return false;
  }

  const binding = value['binding'];
  if (!hasExactly(binding, BINDING_KEYS)) return false;
  for (const key of BINDING_KEYS) if (!isSha256Hex(binding[key])) return false;

  const redactions = value['redactions'];
  if (!Array.isArray(redactions) || redactions.length > MAX_REDACTIONS) return false;
  for (const redaction of redactions as unknown[]) {
    if (!hasExactly(redaction, REDACTION_KEYS) || !isStringOfLength(redaction['path'], 0, 256) || !matches(redaction['reason'], REASON)) {
      return false;
    }
  }
  return true;
}
