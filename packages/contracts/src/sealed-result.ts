import type { ModelResult } from './model-result.js';
import type { ProtectedAudit } from './protected-audit.js';

/** The two projections of one call. Only `model_result` may ever reach a provider payload. */
export interface SealedResult {
  /** What the model may see. */
  model_result: ModelResult;
  /** What operations may see; bound to `model_result` by `binding.result_sha256`. */
  protected_audit: ProtectedAudit;
}
