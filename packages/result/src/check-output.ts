import type { JsonObject, JsonValue } from '@toolseal/contracts';
import { ajvErrorsToReasons, checkUntrustedValue, copyUntrustedValue, isWellFormedText, PatternBudgetExceeded, utf8LengthWithin } from '@toolseal/guard';
import { tryCanonicalize } from './canonical-model-result.js';
import { findCredentialPairs } from './credential-pairs.js';
import { findCredentialValues, holdsCredentialValue } from './find-credential-values.js';
import { findCredentialsInJsonStrings } from './find-credentials-in-json-strings.js';
import { containsProtectedValue, findProtectedValues, protectedNeedles } from './find-protected-values.js';
import { jsonEqual, valueAtSegments, valuesAtTemplate } from './json-pointer.js';
import { judgeOutputKey } from './judge-output-key.js';
import { boundViolations, MAX_OUTPUT_VIOLATIONS, type OutputViolation } from './output-violation.js';
import { REVISION_ALPHABET } from './revision-alphabet.js';
import type { RegisteredTool } from './tool-registry.js';
import { parseUtcTimestamp, timestampFraction } from './utc-timestamp.js';

/** How far in the future a handler's `observed_at` may lie (clock skew between hosts). */
export const MAX_CLOCK_SKEW_MS = 300_000;

/** The largest `receipt` / `status_ref`, as `Downstream` allows (and the stores' identifier limit). */
const MAX_DOWNSTREAM_REFERENCE = 256;

const DROP_ARRAY_PROPERTIES = Object.freeze({ arrayProperties: 'drop' } as const);
const ENVELOPE_KEYS = new Set(['data', 'resource_revision', 'producer_revision', 'observed_at', 'complete', 'truncated', 'receipt', 'status_ref']);
const SAFE_SEGMENT = /^(?:[A-Za-z0-9_]{1,64}|0|[1-9][0-9]{0,5})$/;
// Printable ASCII without space or backslash: what the model sees is exactly what a browser opens.
const PLAIN_URL = /^[\x21-\x5b\x5d-\x7e]+$/;

/** A handler output that passed every check, split into its parts. */
export interface CheckedHandlerOutput {
  /** Business data, exact under the tool's output schema: a private copy of the handler's. */
  data: JsonObject;
  /** External resource revision, matching the tool's pattern. */
  resource_revision: string;
  /** UTC RFC 3339 observation time. */
  observed_at: string;
  /** Whether the result is complete. */
  complete: boolean;
  /** Whether business content was cut by a size limit. */
  truncated: boolean;
  /** Downstream receipt, for `protected_audit` only. */
  receipt: string | null;
  /** Opaque status reference, for `protected_audit` only. */
  status_ref: string | null;
  /** RFC 8785 text of `data`, already measured against `maxBytes`. */
  canonical_data: string;
}

/**
 * Whether `value` (a guard-checked copy: plain JSON within the tool's depth limit) holds at most
 * `max` values, every object, array, string, number, boolean and `null` counted as the guard's
 * `maxTotalNodes` counts them. Stops counting past `max`.
 */
function holdsAtMostValues(value: JsonValue, max: number): boolean {
  let count = 0;
  const visit = (node: JsonValue): boolean => {
    if (++count > max) return false;
    if (typeof node !== 'object' || node === null) return true;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) if (!visit(node[index]!)) return false;
      return true;
    }
    const keys = Object.keys(node);
    for (let index = 0; index < keys.length; index++) if (!visit(node[keys[index]!]!)) return false;
    return true;
  };
  return visit(value);
}

/** Outcome of checking a raw handler output. */
export type HandlerOutputCheck =
  | { ok: true; value: CheckedHandlerOutput }
  | {
      ok: false;
      violations: OutputViolation[];
      /** Well-formed downstream references found in a refused output, kept for reconciliation. */
      receipt: string | null;
      status_ref: string | null;
    };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Cuts a pointer before its first segment that is not a contract-safe name or index. Reads segment
 * by segment and stops there: the rest of a pointer under an attacker's keys (64K units each,
 * several levels deep) is never split or unescaped. A plain-name key the handler made up passes;
 * `declaredOutputPath` cuts it before the path is reported.
 */
export function contractSafePath(pointer: string): string {
  let safe = '';
  for (let start = 1; start <= pointer.length; ) {
    const slash = pointer.indexOf('/', start);
    const end = slash === -1 ? pointer.length : slash;
    // A safe segment is at most 64 characters, and escapes only make it longer.
    if (end - start > 64) break;
    const segment = pointer.slice(start, end).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!SAFE_SEGMENT.test(segment)) break;
    safe += `/${segment}`;
    start = end + 1;
  }
  return safe;
}

/**
 * `path` (a pointer into the handler output, as the checks below build it) cut to what the tool's
 * contract declares: `""`; one envelope member (`/resource_revision`, `/receipt`...: none has
 * declared places below it); or `/data` followed by the longest prefix of the rest that the output
 * schema declares (`RegisteredTool.outputFields`). Any other pointer gives `""`.
 *
 * The checks build contract-safe pointers (plain names and indexes only), but a plain name can still
 * be the handler's: a key the output schema does not declare, holding a function, a `token` key or an
 * overlong string, would otherwise be reported by name (`/data/alice_smith_42`, `/data/sk_live_...`)
 * into the audit log. Only a refused output's violations are cut, once, as they are reported: a
 * sealed output pays nothing for it.
 */
function declaredOutputPath(tool: RegisteredTool, path: string): string {
  if (path === '' || path.charCodeAt(0) !== 0x2f) return '';
  const slash = path.indexOf('/', 1);
  const member = slash === -1 ? path.slice(1) : path.slice(1, slash);
  if (member === 'data') return slash === -1 ? '/data' : `/data${tool.outputFields.declaredPrefix(path.slice(slash))}`;
  return ENVELOPE_KEYS.has(member) ? `/${member}` : '';
}

/**
 * A refused output's violations as they leave this package: each path cut to the contract's
 * declared places (`declaredOutputPath`), then bounded (`boundViolations`; cutting can make two
 * violations the same, which it keeps once).
 */
function reportedViolations(tool: RegisteredTool, violations: readonly OutputViolation[]): OutputViolation[] {
  const cut: OutputViolation[] = [];
  for (let index = 0; index < violations.length; index++) {
    const { rule, path } = violations[index]!;
    cut.push({ rule, path: declaredOutputPath(tool, path) });
  }
  return boundViolations(cut);
}

/**
 * Whether a handler's `receipt` / `status_ref` is absent, `null`, or a reference every idempotency
 * store can hold byte for byte: the stores' identifier rule (`checkIdentifier` of `@toolseal/audit`:
 * 1 to 256 UTF-16 units, no NUL, no unpaired surrogate), built from the same `isWellFormedText`.
 * `@toolseal/audit` sits beside this package (layer 3), so it cannot be imported here; the
 * dispatcher's tests pin that both rules agree. A reference a store would refuse is an output
 * contract violation, decided before anything is stored: otherwise the write's record could never
 * be completed with it (the dispatcher marks a refused output's record `unknown`). Every such
 * reference is one `PROTECTED_AUDIT_SCHEMA` allows (at most 256 code points), and `sealResult`
 * holds an error subject's references to the same rule.
 */
export function isDownstreamReference(value: unknown): value is string | null | undefined {
  if (value === undefined || value === null) return true;
  return (
    typeof value === 'string' &&
    value.length >= 1 &&
    value.length <= MAX_DOWNSTREAM_REFERENCE &&
    !value.includes('\u0000') &&
    isWellFormedText(value)
  );
}

/**
 * Whether `value` is a well-formed `resource_revision` for `tool`: 1 to 128 characters of
 * `REVISION_ALPHABET` (no space or bracket) that the tool's pattern matches.
 */
export function isResourceRevision(tool: RegisteredTool, value: unknown): value is string {
  if (typeof value !== 'string' || !REVISION_ALPHABET.test(value)) return false;
  try {
    return tool.resourceRevision.test(value);
  } catch (error) {
    // Undecided within the pattern engine's work budget: not a revision the contract admits.
    if (error instanceof PatternBudgetExceeded) return false;
    throw error;
  }
}

/** The completion flags `tool` may report; `[]` when they are allowed. */
export function checkCompletion(tool: RegisteredTool, complete: boolean, truncated: boolean): OutputViolation[] {
  if (truncated && complete) return [{ rule: 'truncation_flags', path: '/truncated' }];
  if (!tool.allowIncomplete && (!complete || truncated)) {
    return [{ rule: 'incomplete_not_allowed', path: complete ? '/truncated' : '/complete' }];
  }
  return [];
}

/**
 * Checks business data against everything the tool's contract says about it: the exact output
 * schema, echoed input fields, the recursive sensitive/control-key scan, link schemes and hosts, and
 * media types. `data` must already be a guard-checked JSON value. Paths are prefixed with `prefix`;
 * they are contract-safe pointers, which may still name a plain-name key the output schema does not
 * declare (where a sensitive key sits): `checkHandlerOutput` cuts them to declared places before
 * reporting them. Used when sealing and again when verifying (which only counts them).
 */
export function checkOutputData(
  tool: RegisteredTool,
  data: JsonValue,
  argumentsValue: JsonValue | null,
  prefix = '/data',
): OutputViolation[] {
  const violations: OutputViolation[] = [];
  let valid: boolean;
  try {
    valid = tool.validateOutput(data);
  } catch (error) {
    // A string the contract's pattern engine could not decide within its work budget: refused
    // under its own rule, never taken as a match (the schema checks that did not run are moot).
    if (!(error instanceof PatternBudgetExceeded)) throw error;
    violations.push({ rule: 'pattern_budget', path: prefix });
    valid = true;
  }
  if (!valid) {
    for (const reason of ajvErrorsToReasons(tool.validateOutput.errors)) {
      violations.push({ rule: reason.rule, path: `${prefix}${reason.field}` });
    }
    if (violations.length === 0) violations.push({ rule: 'type', path: prefix });
  }

  // Index loops over the registry's frozen lists: a `for…of` over a frozen array allocates an
  // iterator result per step in this V8, on every sealed and verified call.
  const { echo } = tool;
  for (let index = 0; index < echo.length; index++) {
    const { output, outputSegments, inputSegments } = echo[index]!;
    const produced = valueAtSegments(data, outputSegments);
    const expected = argumentsValue === null ? undefined : valueAtSegments(argumentsValue, inputSegments);
    if (produced === undefined) continue;
    if (expected === undefined || !jsonEqual(produced, expected)) {
      violations.push({ rule: 'echo_mismatch', path: `${prefix}${output}` });
    }
  }

  // No more hits than violations are ever reported (`boundViolations`): each hit's pointer is read
  // in full below, and under an attacker's long keys each is as long as the output.
  const hits = tool.scanSensitiveKeys(data, MAX_OUTPUT_VIOLATIONS);
  let lastParent: string | null = null;
  for (let index = 0; index < hits.length; index++) {
    const { parent } = hits[index]!;
    // Keys of one object share one parent string: one violation for the object.
    if (parent === lastParent) continue;
    lastParent = parent;
    // Point at the object holding the key, never at the (attacker-chosen) key itself.
    violations.push({ rule: 'sensitive_key', path: `${prefix}${contractSafePath(parent)}` });
  }
  // The scan stopped where it had as many hits as could be reported: there may be more.
  const moreKeysUnlisted = hits.length === MAX_OUTPUT_VIOLATIONS;

  const linkPointers = tool.links.pointers;
  for (let index = 0; index < linkPointers.length; index++) {
    for (const { pointer, value } of valuesAtTemplate(data, linkPointers[index]!)) {
      if (typeof value !== 'string') continue;
      const rule = checkLink(tool, value);
      if (rule !== null) violations.push({ rule, path: `${prefix}${pointer}` });
    }
  }

  const mediaPointers = tool.media.pointers;
  for (let index = 0; index < mediaPointers.length; index++) {
    for (const { pointer, value } of valuesAtTemplate(data, mediaPointers[index]!)) {
      if (typeof value === 'string' && !isListedMediaType(tool, value)) {
        violations.push({ rule: 'media_type', path: `${prefix}${pointer}` });
      }
    }
  }
  if (moreKeysUnlisted) violations.push({ rule: 'too_many_violations', path: '' });
  return violations;
}

// Only printable ASCII is case-folded: `toLowerCase` alone also folds look-alikes (U+212A KELVIN SIGN
// to `k`), which would pass a value that is none of the listed types.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** A listed media type, compared ignoring ASCII case (MIME types are case-insensitive). */
function isListedMediaType(tool: RegisteredTool, value: string): boolean {
  return PRINTABLE_ASCII.test(value) && tool.media.types.has(value.toLowerCase());
}

function checkLink(tool: RegisteredTool, value: string): string | null {
  if (!PLAIN_URL.test(value) || !URL.canParse(value)) return 'url_malformed';
  const url = new URL(value);
  if (!tool.links.schemes.has(url.protocol.slice(0, -1))) return 'url_scheme';
  if (url.username !== '' || url.password !== '' || !tool.links.hosts.has(url.host)) return 'url_host';
  // Only a parameter with a value can carry a credential: most links have none.
  if (value.includes('=') && carriesCredentialParameter(tool, url)) return 'url_host';
  return null;
}

/**
 * The `name=value` segments a server reads as parameters of `url`: the query's, split on `&` and
 * `;` (which several server stacks also split on), a path segment's after `;` (`;jsessionid=`),
 * and the fragment's, split on `&`, `;` and `?` (the OAuth implicit grant's
 * `#access_token=...&token_type=Bearer`, a route's `#/callback?access_token=`). A segment without
 * `=` carries no value: a section anchor (`#reset-password`, `#api-keys`) is not a parameter.
 */
function parameterSegments(url: URL): string[] {
  const segments: string[] = [];
  const add = (text: string, separators: RegExp): void => {
    for (const segment of text.split(separators)) if (segment.includes('=')) segments.push(segment);
  };
  if (url.search.length > 1) add(url.search.slice(1), /[&;]/);
  if (url.pathname.includes(';')) {
    for (const pathSegment of url.pathname.split('/')) add(pathSegment.split(';').slice(1).join(';'), /;/);
  }
  if (url.hash.length > 1) add(url.hash.slice(1), /[&;?]/);
  return segments;
}

/** A parameter's name or value as a server decodes it (`+` is a space); the text itself when it does not decode. */
function decodeParameterPart(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

// A name a server reads: printable ASCII, the space included (`access%20token`, `access+token`
// and ` access_token` decode to names PHP, for one, reads as `access_token`; the key scan's
// normalization drops the separator).
const PRINTABLE_ASCII_NAME = /^[\x20-\x7e]+$/;
// Parameters that carry a signature, a session or a one-time ticket in a link, under names no key
// scan flags as a field of data: a presigned or SAS URL's signature and temporary credential
// (AWS, Google Cloud Storage, Azure, CloudFront), a servlet or PHP session id.
// Compared in lower case. Names that are also ordinary link parameters (`code`, `sid`, `ticket`)
// are not listed: a promotion code, a site id or a support ticket in a link must not refuse the output.
const SIGNED_LINK_PARAMETERS: ReadonlySet<string> = new Set([
  'sig',
  'signature',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
  'googleaccessid',
  'key-pair-id',
  'jsessionid',
  'phpsessid',
  'sessionid',
]);
/** Whether `name` is a signed link's parameter, or a name the tool's key scan flags as a key of `data` (`judgeOutputKey`). */
function isSensitiveParameterName(tool: RegisteredTool, name: string): boolean {
  return SIGNED_LINK_PARAMETERS.has(name.trim().toLowerCase()) || judgeOutputKey(tool, name) !== null;
}

/**
 * Whether a parameter of `url` carries a credential: an ASCII name the tool's key scan flags
 * (`?access_token=`, `?password=`, `;jsessionid=`), or a percent-decoded value holding a credential
 * form. An undecoded value is part of the link's text, which is searched for credential forms with
 * every other string of `data`; a name beyond ASCII is no name a server reads a credential under.
 */
function carriesCredentialParameter(tool: RegisteredTool, url: URL): boolean {
  for (const segment of parameterSegments(url)) {
    const separator = segment.indexOf('=');
    const name = decodeParameterPart(segment.slice(0, separator));
    if (PRINTABLE_ASCII_NAME.test(name) && isSensitiveParameterName(tool, name)) return true;
    const rawValue = segment.slice(separator + 1);
    const value = decodeParameterPart(rawValue);
    if (value !== rawValue && holdsCredentialValue(value)) return true;
  }
  return false;
}

/**
 * Checks a raw handler output (any JavaScript value: it may be a class instance, hold getters or
 * cycles) against the tool's contract. Depth, counts, string lengths and JSON-ness are checked by
 * the guard first, on the walk that copies the output (each member and element read once; every
 * later check reads the copy), then the fixed envelope, `resource_revision`, `observed_at` and completion
 * flags, then the encoded size of `data` (its RFC 8785 text, computed once and returned for the
 * seal), then the business data (`checkOutputData`), then whether a string of `data` contains
 * one of `protectedValues` or the output's own `receipt` / `status_ref` (`findProtectedValues`),
 * then whether a string or key of `data` holds a credential form (`findCredentialValues`), then
 * whether an object of `data` is a credential written as a name/value pair (`findCredentialPairs`),
 * and last whether a string of `data` is JSON text holding a credential (`findCredentialsInJsonStrings`).
 */
export function checkHandlerOutput(
  tool: RegisteredTool,
  output: unknown,
  argumentsValue: JsonValue | null,
  nowMs: number,
  protectedValues: readonly (string | null)[] = [],
): HandlerOutputCheck {
  let guarded: ReturnType<typeof copyUntrustedValue>;
  try {
    // A private copy, every member and element read exactly once: everything below reads the copy,
    // so an accessor (on an array index, which a check walk reads without descriptors) cannot pass
    // the limits with one value and be canonicalized, validated and sealed with another. An array's
    // properties besides its items are left out, as its JSON text leaves them out.
    guarded = copyUntrustedValue(output, tool.handlerOutputLimits, DROP_ARRAY_PROPERTIES);
  } catch {
    // Only a Proxy whose traps throw gets here: refused like any other non-JSON value.
    guarded = { ok: false, violation: { rule: 'non_json_value', path: '' } };
  }
  if (!guarded.ok) {
    return {
      ok: false,
      violations: reportedViolations(tool, [guarded.violation]),
      receipt: null,
      status_ref: null,
    };
  }
  try {
    return checkEnvelope(tool, guarded.value, argumentsValue, nowMs, protectedValues);
  } catch {
    // Everything here reads the private copy, which cannot throw: kept so that a defect in a
    // later check refuses the output rather than failing the seal.
    return { ok: false, violations: [{ rule: 'non_json_value', path: '' }], receipt: null, status_ref: null };
  }
}

/** `checkHandlerOutput` after the guard: `envelope` is what the guard passed. */
function checkEnvelope(
  tool: RegisteredTool,
  envelope: JsonValue,
  argumentsValue: JsonValue | null,
  nowMs: number,
  protectedValues: readonly (string | null)[],
): HandlerOutputCheck {
  if (!isObject(envelope)) {
    return { ok: false, violations: [{ rule: 'type', path: '' }], receipt: null, status_ref: null };
  }

  const violations: OutputViolation[] = [];
  for (const key of Object.keys(envelope)) {
    // A top-level `status`, `error` or anything else a handler adds is refused, never merged.
    if (!ENVELOPE_KEYS.has(key)) violations.push({ rule: 'additional_properties', path: '' });
  }
  // Each member read once: everything below checks these values only.
  const { data, resource_revision, producer_revision, observed_at, complete, truncated, receipt, status_ref } = envelope;

  if (data === undefined) violations.push({ rule: 'required', path: '' });
  else if (!isObject(data)) violations.push({ rule: 'type', path: '/data' });

  if (!isResourceRevision(tool, resource_revision)) violations.push({ rule: 'resource_revision', path: '/resource_revision' });
  // Optional; when reported, it must be the registry's (which is what the model is shown either way).
  if (producer_revision !== undefined && producer_revision !== tool.contract.producer_revision) {
    violations.push({ rule: 'producer_revision', path: '/producer_revision' });
  }

  const observedMs = parseUtcTimestamp(observed_at);
  if (Number.isNaN(observedMs)) violations.push({ rule: 'observed_at', path: '/observed_at' });
  else if (observedMs > nowMs + MAX_CLOCK_SKEW_MS) {
    violations.push({ rule: 'observed_at_future', path: '/observed_at' });
  }

  if (complete !== undefined && typeof complete !== 'boolean') violations.push({ rule: 'type', path: '/complete' });
  if (truncated !== undefined && typeof truncated !== 'boolean') violations.push({ rule: 'type', path: '/truncated' });
  const isComplete = complete !== false;
  const isTruncated = truncated === true;
  violations.push(...checkCompletion(tool, isComplete, isTruncated));

  const receiptOk = isDownstreamReference(receipt);
  const statusRefOk = isDownstreamReference(status_ref);
  if (!receiptOk) violations.push({ rule: 'downstream_reference', path: '/receipt' });
  if (!statusRefOk) violations.push({ rule: 'downstream_reference', path: '/status_ref' });
  const keptReceipt = receiptOk && typeof receipt === 'string' ? receipt : null;
  const keptStatusRef = statusRefOk && typeof status_ref === 'string' ? status_ref : null;

  const refuse = (): HandlerOutputCheck => ({
    ok: false,
    violations: reportedViolations(tool, violations),
    receipt: keptReceipt,
    status_ref: keptStatusRef,
  });
  if (!isObject(data)) return refuse();
  // Encoded size before any schema work: `maxBytes` bounds the RFC 8785 encoding of `data`.
  const canonicalData = tryCanonicalize(data);
  if (canonicalData === null) {
    violations.push({ rule: 'non_json_value', path: '/data' });
    return refuse();
  }
  if (!utf8LengthWithin(canonicalData, tool.limits.maxBytes)) {
    violations.push({ rule: 'max_bytes', path: '/data' });
    return refuse();
  }
  // Every later check reads a private copy parsed from the canonical text: what is validated is
  // exactly what is sealed and hashed, even if the handler's object could change between reads.
  const dataCopy = JSON.parse(canonicalData) as JsonObject;
  // Key and string limits below the envelope's own needs (8 keys, 256 units) are checked on `data`
  // alone: the walk of the whole output above had to allow the envelope those.
  if (tool.checksDataLimits) {
    const exact = checkUntrustedValue(dataCopy, tool.dataLimits);
    if (!exact.ok) {
      violations.push({ rule: exact.violation.rule, path: `/data${exact.violation.path}` });
      return refuse();
    }
  } else if (!holdsAtMostValues(dataCopy, tool.limits.maxTotalNodes)) {
    // The walk above counted the envelope's values too (up to 8 beside `data`'s own).
    violations.push({ rule: 'max_total_nodes', path: '/data' });
    return refuse();
  }
  violations.push(...checkOutputData(tool, dataCopy, argumentsValue));
  if (violations.length > 0) return refuse();
  const needles = protectedNeedles([...protectedValues, keptReceipt, keptStatusRef]);
  violations.push(...findProtectedValues(dataCopy, canonicalData, needles));
  violations.push(...findCredentialValues(dataCopy, canonicalData));
  violations.push(...findCredentialPairs(tool, dataCopy));
  violations.push(...findCredentialsInJsonStrings(tool, dataCopy, canonicalData));
  // The handler strings outside `data` that reach the model: `resource_revision` (its pattern is
  // the tool's) and `observed_at` (a timestamp, whose fraction of up to nine digits could spell a
  // numeric id; the rest is a date and a time, which a date-shaped value would match every day).
  if (typeof resource_revision === 'string') {
    if (containsProtectedValue(resource_revision, needles)) violations.push({ rule: 'protected_value', path: '/resource_revision' });
    violations.push(...findCredentialValues(resource_revision, null, '/resource_revision'));
  }
  if (typeof observed_at === 'string' && containsProtectedValue(timestampFraction(observed_at), needles)) {
    violations.push({ rule: 'protected_value', path: '/observed_at' });
  }
  if (violations.length > 0) return refuse();
  return {
    ok: true,
    value: {
      data: dataCopy,
      resource_revision: resource_revision as string,
      observed_at: observed_at as string,
      complete: isComplete,
      truncated: isTruncated,
      receipt: keptReceipt,
      status_ref: keptStatusRef,
      canonical_data: canonicalData,
    },
  };
}
