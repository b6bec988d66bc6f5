/** Whether a tool only reads, or may change external state. Writes need approval and idempotency. */
export type EffectKind = 'read' | 'write';

/**
 * The revisions that identify exactly which contract a call ran under. All six are bound into the
 * call digest; changing any of them invalidates every earlier seal.
 */
export interface ToolContract {
  /**
   * The registered tool name the model called.
   * @pattern ^[A-Za-z][A-Za-z0-9_-]{0,63}$
   */
  tool_name: string;
  /** The tool's effect kind, from the registry. */
  effect: EffectKind;
  /**
   * Revision of the input (arguments) schema.
   * @minLength 1
   * @maxLength 64
   */
  input_revision: string;
  /**
   * Revision of the exact output schema.
   * @minLength 1
   * @maxLength 64
   */
  output_revision: string;
  /**
   * Revision of the effect description (what a write does downstream).
   * @minLength 1
   * @maxLength 64
   */
  effect_revision: string;
  /**
   * Revision of the handler code.
   * @minLength 1
   * @maxLength 64
   */
  handler_revision: string;
  /**
   * Revision of the producer (the downstream system or adapter that supplies data).
   * @minLength 1
   * @maxLength 64
   */
  producer_revision: string;
  /**
   * Revision of the policy (trusted checks, approval rules) the call was judged under.
   * @minLength 1
   * @maxLength 64
   */
  policy_revision: string;
}
