import { INPUT_RULES } from '@toolseal/errors';

/**
 * Rules only the output path reports, beside the schema keywords and guard limits of `INPUT_RULES`.
 */
export const OUTPUT_ONLY_RULES = Object.freeze([
  /** An output field bound to the input differs from it (or is present when the input is absent). */
  'echo_mismatch',
  /** `resource_revision` is missing, not a string, or does not match the tool's pattern. */
  'resource_revision',
  /**
   * The handler reported a `producer_revision` other than the registry's for the tool: it is not the
   * producer the contract describes (a deployment running another revision).
   */
  'producer_revision',
  /** `observed_at` is not UTC RFC 3339 with `Z`. */
  'observed_at',
  /** `observed_at` lies further in the future than the allowed clock skew. */
  'observed_at_future',
  /** A sensitive or control key (token, authorization, call id, digest, ...) occurs in `data`. */
  'sensitive_key',
  /** A link's scheme is not allowed for this tool. */
  'url_scheme',
  /**
   * A link's host is not allowed for this tool, or the link carries credentials: a user or password,
   * or a query or fragment parameter whose name is a sensitive key or whose value holds a credential.
   */
  'url_host',
  /** A link is not an absolute URL. */
  'url_malformed',
  /** A `media_type` / `mime_type` value is not allowed for this tool. */
  'media_type',
  /** `complete: false` or `truncated: true` from a tool that may not return incomplete results. */
  'incomplete_not_allowed',
  /** `truncated: true` together with `complete: true`. */
  'truncation_flags',
  /**
   * `receipt` or `status_ref` is not `null` or a bounded string the stores can hold (no NUL, no
   * lone surrogate).
   */
  'downstream_reference',
  /**
   * A string in `data` contains a protected value of the call (tenant or subject id, operation id,
   * idempotency key, receipt, status reference): the model projection must never carry them.
   */
  'protected_value',
  /**
   * A string or key in `data` (or the `resource_revision`) holds a credential recognised by its
   * form (a private key, a JWT, a provider API key, an `Authorization` credential, a URL with a
   * password: `findCredentialValue` of `@toolseal/guard`), whatever key it sits under.
   */
  'credential_value',
  /**
   * A string in `data` could not be matched against a pattern of the output schema within the
   * pattern engine's work budget (`PatternBudgetExceeded` of `@toolseal/guard`): the output is
   * refused, never guessed to match. The path is `/data`: the engine does not say which string.
   */
  'pattern_budget',
  /**
   * The last entry of a list cut at `MAX_OUTPUT_VIOLATIONS`: more violations were found than are
   * kept (the audit body stays bounded whatever a handler returns).
   */
  'too_many_violations',
] as const);

/** Most violations reported for one output (the last one says `too_many_violations` when cut). */
export const MAX_OUTPUT_VIOLATIONS = 64;
/** Longest violation path kept; a longer one is cut at a segment boundary. */
export const MAX_VIOLATION_PATH_LENGTH = 256;

/** Every rule an `OutputViolation` can carry: a finite vocabulary. */
export const OUTPUT_VIOLATION_RULES: readonly string[] = Object.freeze([...INPUT_RULES, ...OUTPUT_ONLY_RULES]);

/**
 * Why a handler output was refused. For the protected audit and the host only: it never reaches
 * `model_result`, which carries the fixed OUTPUT_CONTRACT_VIOLATION error instead.
 */
export interface OutputViolation {
  /** One of `OUTPUT_VIOLATION_RULES`. */
  rule: string;
  /**
   * JSON Pointer into the handler output (`/data/...` for business data, `""` or `/<field>` for
   * the envelope), built only from contract-known names and indexes: under `/data`, the longest
   * prefix of the offending place that the tool's output schema declares (`RegisteredTool
   * .outputFields`), so a key the handler made up (however plain its name) is never echoed.
   */
  path: string;
}

function boundedPath(path: string): string {
  if (path.length <= MAX_VIOLATION_PATH_LENGTH) return path;
  const cut = path.lastIndexOf('/', MAX_VIOLATION_PATH_LENGTH);
  return cut <= 0 ? '' : path.slice(0, cut);
}

/**
 * The violations as they are reported and audited: duplicates removed, every path at most
 * `MAX_VIOLATION_PATH_LENGTH` characters (cut at a segment boundary), at most
 * `MAX_OUTPUT_VIOLATIONS` entries, the last of which is `{ rule: "too_many_violations", path: "" }`
 * when more were found. A handler that returns thousands of offending keys, deeply nested, still
 * gives an audit body of a few kilobytes.
 */
export function boundViolations(violations: readonly OutputViolation[]): OutputViolation[] {
  const seen = new Set<string>();
  const bounded: OutputViolation[] = [];
  for (const { rule, path } of violations) {
    const kept = boundedPath(path);
    const key = `${rule}\u0000${kept}`;
    if (seen.has(key)) continue;
    if (bounded.length === MAX_OUTPUT_VIOLATIONS) {
      bounded[MAX_OUTPUT_VIOLATIONS - 1] = { rule: 'too_many_violations', path: '' };
      break;
    }
    seen.add(key);
    bounded.push({ rule, path: kept });
  }
  return bounded;
}
