import { isWellFormedText } from '@toolseal/guard';

/** Longest provider id (response or call) accepted, as `ProviderContext` allows. */
export const MAX_PROVIDER_ID_LENGTH = 256;
/** Longest tool name accepted before the registry lookup; no provider allows more than 128. */
export const MAX_TOOL_NAME_LENGTH = 256;

/**
 * True for a string of 1 to `maxLength` UTF-16 code units with no lone surrogate (which RFC 8785
 * cannot canonicalize, so such an id could never be bound into a digest).
 */
export function isWellFormedIdentifier(value: unknown, maxLength: number): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= maxLength &&
    isWellFormedText(value)
  );
}
