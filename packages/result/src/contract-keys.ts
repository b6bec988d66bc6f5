// Member lists of the contract types, in their declared order. `CONTRACT_KEYS` and
// `CONTRACT_REVISIONS` are exported, frozen. The package's own loops read the plain arrays below,
// which never leave it: in this V8 a `for…of` over a frozen array is not inlined, and each step
// allocates an iterator result (about 3 KB a sealed call across the checks of a package).

/** The revisions of a `ToolContract` (internal: never handed out, so never changed). */
export const CONTRACT_REVISION_LIST = [
  'input_revision',
  'output_revision',
  'effect_revision',
  'handler_revision',
  'producer_revision',
  'policy_revision',
] as const;

/** Every member of a `ToolContract` (internal, as above). */
export const CONTRACT_KEY_LIST = ['tool_name', 'effect', ...CONTRACT_REVISION_LIST] as const;

/** Every member of `ProtectedAudit.provider_context` (internal, as above). */
export const PROVIDER_CONTEXT_KEY_LIST = ['provider', 'api_family', 'response_id', 'call_id', 'adapter_revision'] as const;

/** The revisions of a `ToolContract`. */
export const CONTRACT_REVISIONS: typeof CONTRACT_REVISION_LIST = Object.freeze([...CONTRACT_REVISION_LIST] as const);

/** Every member of a `ToolContract`. */
export const CONTRACT_KEYS: typeof CONTRACT_KEY_LIST = Object.freeze([...CONTRACT_KEY_LIST] as const);

/** Every member of `ProtectedAudit.provider_context`. */
export const PROVIDER_CONTEXT_KEYS: typeof PROVIDER_CONTEXT_KEY_LIST = Object.freeze([...PROVIDER_CONTEXT_KEY_LIST] as const);
