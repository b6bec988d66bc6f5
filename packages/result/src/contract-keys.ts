// Member lists of the contract types, in their declared order, frozen (`CONTRACT_KEYS` and
// `CONTRACT_REVISIONS` are exported: every check of the package reads them).

/** The revisions of a `ToolContract`. */
export const CONTRACT_REVISIONS = Object.freeze([
  'input_revision',
  'output_revision',
  'effect_revision',
  'handler_revision',
  'producer_revision',
  'policy_revision',
] as const);

/** Every member of a `ToolContract`. */
export const CONTRACT_KEYS = Object.freeze(['tool_name', 'effect', ...CONTRACT_REVISIONS] as const);

/** Every member of `ProtectedAudit.provider_context`. */
export const PROVIDER_CONTEXT_KEYS = Object.freeze(['provider', 'api_family', 'response_id', 'call_id', 'adapter_revision'] as const);
