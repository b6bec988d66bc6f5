import { correlateToolResults, readOwnData, type AdapterSettings } from '@toolseal/adapter-core';
import type { FormatToolResultsInput, FormatToolResultsOutcome, ToolCall } from '@toolseal/contracts';
import type {
  OpenAIResponsesFormatOptions,
  OpenAIResponsesFunctionCall,
  OpenAIResponsesFunctionCallOutput,
  OpenAIResponsesOutputItem,
  OpenAIResponsesPayload,
} from './openai-responses-api.js';
import { OPENAI_RESPONSES_DEFAULT_SETTINGS } from './openai-responses-default-settings.js';

/**
 * Rebuilds the `function_call` items of a stateless continuation from the parsed calls, taking
 * only the item id from `responseOutput`. Throws a `TypeError` when `responseOutput` does not hold
 * each call's item with the same name and arguments: the host passed the wrong response.
 */
function echoFunctionCalls(
  calls: readonly ToolCall[],
  responseOutput: readonly OpenAIResponsesOutputItem[],
): OpenAIResponsesFunctionCall[] {
  const itemsByCallId = new Map<string, unknown>();
  const output: readonly unknown[] = Array.isArray(responseOutput) ? responseOutput : [];
  for (let index = 0; index < output.length; index++) {
    const item = readOwnData(output, index);
    const callId = readOwnData(item, 'call_id');
    if (readOwnData(item, 'type') === 'function_call' && typeof callId === 'string') {
      itemsByCallId.set(callId, item);
    }
  }
  return calls.map((call) => {
    const item = itemsByCallId.get(call.call_id);
    if (
      item === undefined ||
      call.arguments.format !== 'json_text' ||
      readOwnData(item, 'name') !== call.tool_name ||
      readOwnData(item, 'arguments') !== call.arguments.text
    ) {
      throw new TypeError(
        'stateless continuation: responseOutput must be the output of the response the calls were parsed from',
      );
    }
    const itemId = readOwnData(item, 'id');
    return {
      type: 'function_call',
      ...(typeof itemId === 'string' ? { id: itemId } : {}),
      call_id: call.call_id,
      name: call.tool_name,
      arguments: call.arguments.text,
    };
  });
}

/**
 * Serializes one turn's verified results as Responses API `function_call_output` items, each
 * `output` being the RFC 8785 canonical JSON text of `model_result` and nothing else.
 *
 * Every result is correlated by `protected_audit.provider_context.call_id`, checked against this
 * adapter's provider, API family and accepted revisions, and verified with `verify`; any refusal
 * (missing, duplicate, unknown, foreign or unverified result) refuses the whole turn. Outputs come
 * in call order.
 *
 * - `previous_response_id`: `{ previous_response_id, input: [outputs] }`.
 * - `stateless`: `{ input: [function_call items, outputs] }`, the calls echoed in response order.
 *
 * Never throws on bad results. Throws a `TypeError` on host misuse: no calls, calls from several
 * responses, or a `responseOutput` that does not hold the calls.
 */
export function convertToOpenAIResponsesFunctionCallOutputs(
  input: FormatToolResultsInput<OpenAIResponsesFormatOptions>,
  settings: AdapterSettings = OPENAI_RESPONSES_DEFAULT_SETTINGS,
): FormatToolResultsOutcome<OpenAIResponsesPayload> {
  const { options } = input;
  if (options.continuation !== 'previous_response_id' && options.continuation !== 'stateless') {
    throw new TypeError("options.continuation must be 'previous_response_id' or 'stateless'");
  }
  const correlated = correlateToolResults(settings.identity, input);
  if (!correlated.ok) return correlated;
  const outputs = correlated.results.map(
    (result): OpenAIResponsesFunctionCallOutput => ({
      type: 'function_call_output',
      call_id: result.call.call_id,
      output: result.modelResultText,
    }),
  );
  if (options.continuation === 'previous_response_id') {
    return { ok: true, payload: { previous_response_id: correlated.response_id, input: outputs } };
  }
  const echoed = echoFunctionCalls(input.calls, options.responseOutput);
  return { ok: true, payload: { input: [...echoed, ...outputs] } };
}
