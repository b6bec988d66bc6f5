import type { VerifyOutcome } from './provider.js';
import type { SealedResult } from './sealed-result.js';
import type { ToolCall } from './tool-call.js';

/**
 * Recomputes every binding of `sealed` from trusted context (principal, operation, registry) for
 * the given call. The host builds it per turn (see `@toolseal/result`); adapters call it before
 * serializing anything.
 */
export type ResultVerifier = (sealed: SealedResult, call: ToolCall) => VerifyOutcome;
