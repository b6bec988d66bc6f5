import {
  correlateToolResults,
  formatOptionsOf,
  privateArgumentsOf,
  type AdapterSettings,
} from '@toolseal/adapter-core';
import type { FormatToolResultsInput, FormatToolResultsOutcome, JsonObject, ToolCall } from '@toolseal/contracts';
import type {
  GeminiFunctionCallStep,
  GeminiFunctionResultStep,
  GeminiInteractionsFormatOptions,
  GeminiInteractionsPayload,
} from './gemini-interactions-api.js';
import { GEMINI_INTERACTIONS_DEFAULT_SETTINGS } from './gemini-interactions-default-settings.js';

/**
 * The arguments a stateless continuation echoes for `call`: a private copy for this payload alone,
 * never the host's object (the SDK response may be changed after parsing, and a value the guard
 * refused may be too deep to serialize) nor the call's own value (changing the payload must not
 * change the call or another payload). A fresh copy of the frozen copy the parser kept when it
 * checked the arguments (the arguments as parsed, which the call carries and the dispatcher ran),
 * or, for calls the host rebuilt, one taken now under the adapter's limits. Arguments that are not
 * JSON data (`Infinity` from 1e400, a `__proto__` key, an accessor) have no copy: the dispatcher
 * refused that call, its result says so, and the call is echoed with empty arguments.
 */
function echoedArguments(call: ToolCall, settings: AdapterSettings): JsonObject {
  if (call.arguments.format !== 'json_value') {
    throw new TypeError('stateless continuation: calls must come from this adapter (json_value arguments)');
  }
  // A fresh copy on every call of `privateArgumentsOf`: nothing else holds it.
  const copy = privateArgumentsOf(call, settings.limits.argumentLimits);
  // The parser accepts object arguments only; anything else cannot be a copy of them.
  return typeof copy === 'object' && copy !== null && !Array.isArray(copy) ? copy : {};
}

/**
 * Serializes one turn's verified results as Interactions API `function_result` steps, one per
 * call in call order, each `{ type, call_id, name, result: [one text block], is_error }` with the
 * RFC 8785 canonical JSON text of `model_result` and nothing else.
 *
 * Every result is correlated by `protected_audit.provider_context.call_id`, checked against this
 * adapter's provider, API family and accepted revisions, and verified with `verify`; any refusal
 * refuses the whole turn.
 *
 * - `previous_interaction_id`: `{ previous_interaction_id, input: [results] }`.
 * - `stateless`: `{ input: [function_call steps, results] }`, the calls echoed in step order.
 *
 * The `stateless` echo carries a private copy of each call's arguments, its own in every payload
 * (see `echoedArguments`), never the SDK's object nor the call's.
 *
 * Never throws on bad results. Throws a `TypeError` on host misuse: `options` or `calls` missing or
 * not what they must be, no calls, calls from several interactions, or an unknown continuation.
 */
export function convertToGeminiFunctionResults(
  input: FormatToolResultsInput<GeminiInteractionsFormatOptions>,
  settings: AdapterSettings = GEMINI_INTERACTIONS_DEFAULT_SETTINGS,
): FormatToolResultsOutcome<GeminiInteractionsPayload> {
  const { continuation } = formatOptionsOf(input);
  if (continuation !== 'previous_interaction_id' && continuation !== 'stateless') {
    throw new TypeError("options.continuation must be 'previous_interaction_id' or 'stateless'");
  }
  const correlated = correlateToolResults(settings.identity, input, settings.limits);
  if (!correlated.ok) return correlated;
  const results = correlated.results.map(
    (result): GeminiFunctionResultStep => ({
      type: 'function_result',
      call_id: result.call.call_id,
      name: result.call.tool_name,
      result: [{ type: 'text', text: result.modelResultText }],
      is_error: result.isError,
    }),
  );
  if (continuation === 'previous_interaction_id') {
    return { ok: true, payload: { previous_interaction_id: correlated.response_id, input: results } };
  }
  const echoed = correlated.results.map(
    ({ call }): GeminiFunctionCallStep => ({
      type: 'function_call',
      id: call.call_id,
      name: call.tool_name,
      arguments: echoedArguments(call, settings),
    }),
  );
  return { ok: true, payload: { input: [...echoed, ...results] } };
}
