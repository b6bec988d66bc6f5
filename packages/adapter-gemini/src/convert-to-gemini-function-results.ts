import { correlateToolResults, type AdapterSettings } from '@toolseal/adapter-core';
import type { FormatToolResultsInput, FormatToolResultsOutcome } from '@toolseal/contracts';
import type {
  GeminiFunctionCallStep,
  GeminiFunctionResultStep,
  GeminiInteractionsFormatOptions,
  GeminiInteractionsPayload,
} from './gemini-interactions-api.js';
import { GEMINI_INTERACTIONS_DEFAULT_SETTINGS } from './gemini-interactions-default-settings.js';

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
 * Never throws on bad results. Throws a `TypeError` on host misuse: no calls, calls from several
 * interactions, or an unknown continuation.
 */
export function convertToGeminiFunctionResults(
  input: FormatToolResultsInput<GeminiInteractionsFormatOptions>,
  settings: AdapterSettings = GEMINI_INTERACTIONS_DEFAULT_SETTINGS,
): FormatToolResultsOutcome<GeminiInteractionsPayload> {
  const { continuation } = input.options;
  if (continuation !== 'previous_interaction_id' && continuation !== 'stateless') {
    throw new TypeError("options.continuation must be 'previous_interaction_id' or 'stateless'");
  }
  const correlated = correlateToolResults(settings.identity, input);
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
  const echoed = correlated.results.map(({ call }): GeminiFunctionCallStep => {
    if (call.arguments.format !== 'json_value') {
      throw new TypeError('stateless continuation: calls must come from this adapter (json_value arguments)');
    }
    return {
      type: 'function_call',
      id: call.call_id,
      name: call.tool_name,
      arguments: call.arguments.value as Record<string, unknown>,
    };
  });
  return { ok: true, payload: { input: [...echoed, ...results] } };
}
