import type { JsonValue, ModelResult } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';

/**
 * RFC 8785 text of a model result whose `data` is already canonical. RFC 8785 orders members by
 * their UTF-16 code units and writes each member's value in its own canonical form, so the
 * canonical object is `{"data":<data>,` followed by the other five members in order ("data" sorts
 * before "error", "execution", "provenance", "schema_version" and "status"). This lets the seal and
 * verification paths canonicalize `data` once, measure its bytes, and still hash exactly
 * `canonicalize(model_result)`.
 */
export function composeCanonicalModelResult(canonicalData: string, result: Omit<ModelResult, 'data'>): string {
  const rest = canonicalize({
    error: result.error,
    execution: result.execution,
    provenance: result.provenance,
    schema_version: result.schema_version,
    status: result.status,
  });
  return `{"data":${canonicalData},${rest.slice(1)}`;
}

/** `canonicalize(data)`, or `null` when `data` cannot be canonicalized. */
export function tryCanonicalize(value: JsonValue): string | null {
  try {
    return canonicalize(value);
  } catch {
    return null;
  }
}
