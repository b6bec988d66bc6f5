// Wire types of the OpenAI Responses API, as far as this adapter reads or writes them.
// Source: openai-node 6.49.0 `resources/responses/responses.d.ts` and the OpenAPI spec 2.3.0
// (`FunctionToolCall`, `FunctionCallOutputItemParam`). The SDK's own types are assignable to the
// input types and the output types satisfy the SDK's parameter types (see `*.test-d.ts`).

/** The provider name this adapter writes into every `ToolCall`. */
export const OPENAI_PROVIDER = 'openai';
/** The API family this adapter writes into every `ToolCall`. */
export const OPENAI_RESPONSES_API_FAMILY = 'responses';
/** This adapter's revision: bound into every call digest it serializes results for. */
export const OPENAI_RESPONSES_ADAPTER_REVISION = 'openai-responses-v1';

/**
 * Most items one response's `output` may hold: far above anything a response can carry (every
 * item costs output tokens, and `max_output_tokens` is at most a few hundred thousand), low enough
 * that a sparse or proxied array claiming billions of items is refused before any loop. A longer
 * output is refused by `parseToolCalls` and, as a `responseOutput`, by a stateless continuation.
 */
export const MAX_RESPONSE_OUTPUT_ITEMS = 100_000;

/**
 * Longest call id OpenAI takes back: `FunctionCallOutputItemParam.call_id` has `maxLength: 64` in
 * the official OpenAPI schema (openai/openai-openapi, spec 2.3.0). A call with a longer id could run,
 * but its result could never be delivered, so `parseToolCalls` refuses the response instead. The
 * schema states no such bound for the response id or the item `id`; they keep the 256 of
 * `MAX_PROVIDER_ID_LENGTH`.
 */
export const MAX_OPENAI_CALL_ID_LENGTH = 64;

/**
 * Longest `function_call_output.output` string OpenAI takes: `maxLength: 10485760` in the official
 * OpenAPI schema (`FunctionCallOutputItemParam.output`, spec 2.3.0), counted as JSON Schema counts
 * (Unicode code points). A tool may allow larger results (up to 16 MiB): `formatToolResults` refuses
 * the turn rather than send an output OpenAI rejects.
 */
export const MAX_FUNCTION_CALL_OUTPUT_LENGTH = 10_485_760;

/**
 * Any item of `Response.output`: only `type` is read before narrowing. The fields a
 * `function_call` item carries are declared (as `unknown`: each is checked at run time) so an
 * item written inline in a `parseToolCalls` call type-checks as well as the SDK's `Response` does.
 */
export interface OpenAIResponsesOutputItem {
  readonly type: string;
  readonly id?: unknown;
  readonly call_id?: unknown;
  readonly name?: unknown;
  readonly arguments?: unknown;
  readonly status?: unknown;
  readonly namespace?: unknown;
  readonly caller?: unknown;
}

/** The part of a Responses API `Response` the adapter reads. The SDK's `Response` is assignable. */
export interface OpenAIResponsesResponse {
  /** The response id (`resp_...`): the `response_id` of every call. */
  readonly id: string;
  /** The output items; `function_call` items are the tool calls, everything else is ignored. */
  readonly output: readonly OpenAIResponsesOutputItem[];
  /**
   * `completed` when the response is finished. Any other value (`incomplete` after
   * `max_output_tokens`, `in_progress`, `queued`, `failed`, `cancelled`) refuses a response that
   * holds a function call: its arguments may be cut short. Absent is taken as finished.
   */
  readonly status?: string | undefined;
}

/** A `function_call` item, as echoed back in a stateless continuation (`ResponseFunctionToolCall`). */
export interface OpenAIResponsesFunctionCall {
  type: 'function_call';
  /** The item id (`fc_...`), when the original item had one. */
  id?: string;
  /** The call id (`call_...`) results are correlated by. */
  call_id: string;
  /** The tool name the model chose. */
  name: string;
  /** The arguments as JSON text, exactly as the model produced them. */
  arguments: string;
}

/** A `function_call_output` input item (`ResponseInputItem.FunctionCallOutput`). */
export interface OpenAIResponsesFunctionCallOutput {
  type: 'function_call_output';
  /** The call id this output answers. */
  call_id: string;
  /** The RFC 8785 canonical JSON text of the verified `model_result`, and nothing else. */
  output: string;
}

/** Continue on the server: the stored response holds the calls; send only the outputs. */
export interface OpenAIResponsesPreviousResponsePayload {
  previous_response_id: string;
  input: OpenAIResponsesFunctionCallOutput[];
}

/**
 * Continue without server state (`store: false`): every `function_call` item goes back, in
 * response order, followed by the outputs in the same order. The host prepends any earlier
 * conversation items (and reasoning items, for reasoning models).
 */
export interface OpenAIResponsesStatelessPayload {
  input: Array<OpenAIResponsesFunctionCall | OpenAIResponsesFunctionCallOutput>;
}

/** What `formatToolResults` returns; spread it into `client.responses.create({ model, ...payload })`. */
export type OpenAIResponsesPayload = OpenAIResponsesPreviousResponsePayload | OpenAIResponsesStatelessPayload;

/** How the next turn continues. */
export type OpenAIResponsesFormatOptions =
  | {
      continuation: 'previous_response_id';
    }
  | {
      continuation: 'stateless';
      /** `response.output` of the response the calls were parsed from, unchanged. */
      responseOutput: readonly OpenAIResponsesOutputItem[];
    };
