import type { JsonValue, ModelResult } from '@toolseal/contracts';
import { canonicalize, canonicalString } from '@toolseal/digests';

/**
 * The members after `data` of a model result whose `error` is `null`, written directly: RFC 8785
 * orders members by their UTF-16 code units, so `error` < `execution` < `provenance` <
 * `schema_version` < `status`, `complete` < `delivery` < `outcome` < `truncated`, and
 * `observed_at` < `producer_revision` < `resource_revision` < `source_label` < `trust`. `null` when
 * a member does not have the type `ModelResult` gives it (then the generic path decides).
 */
function composeSucceededTail(result: Omit<ModelResult, 'data'>): string | null {
  const { execution, provenance } = result;
  if (typeof execution.complete !== 'boolean' || typeof execution.truncated !== 'boolean') return null;
  const delivery = canonicalString(execution.delivery);
  const outcome = canonicalString(execution.outcome);
  const observedAt = canonicalString(provenance.observed_at);
  const producerRevision = canonicalString(provenance.producer_revision);
  const resourceRevision = provenance.resource_revision === null ? 'null' : canonicalString(provenance.resource_revision);
  const sourceLabel = canonicalString(provenance.source_label);
  const trust = canonicalString(provenance.trust);
  const schemaVersion = canonicalString(result.schema_version);
  const status = canonicalString(result.status);
  if (
    delivery === undefined ||
    outcome === undefined ||
    observedAt === undefined ||
    producerRevision === undefined ||
    resourceRevision === undefined ||
    sourceLabel === undefined ||
    trust === undefined ||
    schemaVersion === undefined ||
    status === undefined
  ) {
    return null;
  }
  return (
    `"error":null,"execution":{"complete":${execution.complete},"delivery":${delivery},"outcome":${outcome},` +
    `"truncated":${execution.truncated}},"provenance":{"observed_at":${observedAt},` +
    `"producer_revision":${producerRevision},"resource_revision":${resourceRevision},` +
    `"source_label":${sourceLabel},"trust":${trust}},"schema_version":${schemaVersion},"status":${status}}`
  );
}

/**
 * RFC 8785 text of a model result whose `data` is already canonical. RFC 8785 orders members by
 * their UTF-16 code units and writes each member's value in its own canonical form, so the
 * canonical object is `{"data":<data>,` followed by the other five members in order ("data" sorts
 * before "error", "execution", "provenance", "schema_version" and "status"). This lets the seal and
 * verification paths canonicalize `data` once, measure its bytes, and still hash exactly
 * `canonicalize(model_result)`.
 *
 * `result` must have exactly the members of `ModelResult` (the seal builds it so; verification
 * validates it against `MODEL_RESULT_SCHEMA` first). When `error` is `null` (every data result) the
 * fixed members are written directly, without canonicalizing them; otherwise they are canonicalized.
 * Throws `CanonicalizationError` where `canonicalize(result)` would.
 */
export function composeCanonicalModelResult(canonicalData: string, result: Omit<ModelResult, 'data'>): string {
  const tail = result.error === null ? composeSucceededTail(result) : null;
  if (tail !== null) return `{"data":${canonicalData},${tail}`;
  const rest = canonicalize({
    error: result.error,
    execution: result.execution,
    provenance: result.provenance,
    schema_version: result.schema_version,
    status: result.status,
  });
  return `{"data":${canonicalData},${rest.slice(1)}`;
}

/**
 * The `data` member of `canonicalModelResult`, the RFC 8785 text of a model result that passed
 * `MODEL_RESULT_SCHEMA`, without canonicalizing anything: `data` is its first member, and `error`
 * comes right after it. Only `data` may hold a member named `error` (every other object of the
 * schema lists its members, and a JSON string cannot hold an unescaped `"`), so the last `,"error":`
 * of the text is the top-level one. `null` when the text does not have that shape.
 */
export function canonicalDataOf(canonicalModelResult: string): string | null {
  const prefix = '{"data":';
  if (!canonicalModelResult.startsWith(prefix)) return null;
  // The last occurrence, found forwards: V8's `indexOf` is several times faster than `lastIndexOf`
  // (measured 2 × 50 ns against 240 ns over a 474-character result), and verification finds `data`
  // in every text it is given. Each search starts after the previous hit: linear in the text.
  const separator = ',"error":';
  let end = canonicalModelResult.indexOf(separator, prefix.length);
  while (end !== -1) {
    const next = canonicalModelResult.indexOf(separator, end + 1);
    if (next === -1) break;
    end = next;
  }
  return end > prefix.length ? canonicalModelResult.slice(prefix.length, end) : null;
}

/** `canonicalize(data)`, or `null` when `data` cannot be canonicalized. */
export function tryCanonicalize(value: JsonValue): string | null {
  try {
    return canonicalize(value);
  } catch {
    return null;
  }
}
