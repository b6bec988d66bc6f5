/**
 * Proposed arguments exactly as the provider delivered them: JSON text (OpenAI) or an
 * already-parsed value (Anthropic, Gemini). Untrusted until the guard and the input contract pass.
 */
export type RawArguments =
  | {
      /** The provider sent the arguments as JSON text. */
      format: 'json_text';
      /** The text, unparsed. The guard checks bytes and depth before any parse. */
      text: string;
    }
  | {
      /** The provider's SDK already parsed the arguments into a value. */
      format: 'json_value';
      /** The value, unchecked. The guard walks it iteratively with the same limits. */
      value: unknown;
    };

/**
 * A provider-neutral tool call: an untrusted proposal from the model. Adapters produce it; nothing
 * after the adapter knows a provider's field names.
 */
export interface ToolCall {
  /**
   * Provider name, e.g. `openai`. Set by the adapter, not by the model.
   * @pattern ^[a-z][a-z0-9_-]{0,31}$
   */
  provider: string;
  /**
   * API family, e.g. `responses`. Set by the adapter.
   * @pattern ^[a-z][a-z0-9_.-]{0,63}$
   */
  api_family: string;
  /**
   * Revision of the adapter that parsed the call: no control character.
   * @minLength 1
   * @maxLength 64
   * @pattern ^[^\u0000-\u001f\u007f-\u009f]*$
   */
  adapter_revision: string;
  /**
   * The provider's response (turn) id: printable ASCII without the space (`!` to `~`), as
   * `dispatch` requires.
   * @pattern ^[!-~]{1,256}$
   */
  response_id: string;
  /**
   * The provider's call id: the only key results are correlated by. Printable ASCII without the
   * space, as `dispatch` requires.
   * @pattern ^[!-~]{1,256}$
   */
  call_id: string;
  /**
   * The tool name the model proposed. Untrusted until found in the registry. Printable ASCII
   * without the space; empty is a name the model chose (answered UNKNOWN_TOOL).
   * @pattern ^[!-~]{0,256}$
   */
  tool_name: string;
  /** The proposed arguments, raw. */
  arguments: RawArguments;
}
