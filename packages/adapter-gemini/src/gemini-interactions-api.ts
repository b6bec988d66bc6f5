// Wire types of the Gemini Interactions API, as far as this adapter reads or writes them.
// Source: @google/genai 2.32.0 `dist/genai.d.ts`, namespace `Interactions` (`Interaction`,
// `FunctionCallStep`, `FunctionResultStep`, `TextContent`, `CreateModelInteractionParamsNonStreaming`).
// The SDK's `Interaction` is assignable to the input type and the output types satisfy the SDK's
// parameter types (see `*.test-d.ts`).

/** The provider name this adapter writes into every `ToolCall`. */
export const GEMINI_PROVIDER = 'gemini';
/** The API family this adapter writes into every `ToolCall`. */
export const GEMINI_INTERACTIONS_API_FAMILY = 'interactions';
/** This adapter's revision: bound into every call digest it serializes results for. */
export const GEMINI_INTERACTIONS_ADAPTER_REVISION = 'gemini-interactions-v1';

/**
 * Most steps one interaction's `steps` may hold: far above anything an interaction can carry (every
 * step costs tokens of the model's context window), low enough that a proxied or host-made array
 * claiming billions of steps is refused before any loop. The bound the OpenAI adapter keeps on a
 * response's output items (`MAX_RESPONSE_OUTPUT_ITEMS`), with the same refusal: longer `steps`
 * refuse the interaction (`MALFORMED_TOOL_CALL`, `malformed_response`).
 */
export const MAX_INTERACTION_STEPS = 100_000;

/** Any step of an interaction: only `type` is read before narrowing. */
export interface GeminiStep {
  readonly type: string;
}

/** The part of an `Interaction` the adapter reads. The SDK's `Interaction` is assignable. */
export interface GeminiInteractionsResponse {
  /** The interaction id: the `response_id` of every call and the next `previous_interaction_id`. */
  readonly id: string;
  /**
   * `requires_action` when the model waits for the client's function results: the only status
   * under which pending `function_call` steps are returned as calls, and one that refuses an
   * interaction without any. The SDK's other values
   * (`in_progress`, `queued`, `requires_continuation`, `incomplete`, `failed`, `cancelled`,
   * `budget_exceeded`, `completed`) refuse an interaction that still has a pending call.
   */
  readonly status?: string | undefined;
  /**
   * The steps; `function_call` steps not answered by a later `function_result` step are the tool
   * calls (at least one while `status` is `requires_action`), everything else is ignored. More
   * than `MAX_INTERACTION_STEPS` refuse the interaction before any is read.
   */
  readonly steps?: readonly GeminiStep[] | undefined;
}

/** One text content block (`Interactions.TextContent`). */
export interface GeminiTextContent {
  type: 'text';
  text: string;
}

/** A `function_result` step (`Interactions.FunctionResultStep`). */
export interface GeminiFunctionResultStep {
  type: 'function_result';
  /** The `function_call` step id this result answers. */
  call_id: string;
  /** The tool name of the call. */
  name: string;
  /** Exactly one text block: the RFC 8785 canonical JSON text of the verified `model_result`. */
  result: [GeminiTextContent];
  /** `true` when `model_result.status` is not `succeeded`. */
  is_error: boolean;
}

/** A `function_call` step, as echoed back in a stateless continuation (`Interactions.FunctionCallStep`). */
export interface GeminiFunctionCallStep {
  type: 'function_call';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** Continue on the server: the stored interaction holds the calls; send only the results. */
export interface GeminiPreviousInteractionPayload {
  previous_interaction_id: string;
  input: GeminiFunctionResultStep[];
}

/**
 * Continue without server state (`store: false`): every `function_call` step goes back, in step
 * order, followed by the results in the same order. The host prepends earlier conversation steps.
 */
export interface GeminiStatelessPayload {
  input: Array<GeminiFunctionCallStep | GeminiFunctionResultStep>;
}

/** What `formatToolResults` returns; spread it into `ai.interactions.create({ model, ...payload })`. */
export type GeminiInteractionsPayload = GeminiPreviousInteractionPayload | GeminiStatelessPayload;

/** How the next turn continues. */
export interface GeminiInteractionsFormatOptions {
  continuation: 'previous_interaction_id' | 'stateless';
}
