import {
  createToolCallCollector,
  isPlainObject,
  isWellFormedIdentifier,
  MAX_PROVIDER_ID_LENGTH,
  readOwnData,
  rejectMalformedToolCall,
  resolveAdapterSettings,
  type AdapterSettings,
} from '@toolseal/adapter-core';
import type { ParseToolCallsOutcome } from '@toolseal/contracts';
import {
  GEMINI_INTERACTIONS_ADAPTER_REVISION,
  GEMINI_INTERACTIONS_API_FAMILY,
  GEMINI_PROVIDER,
  type GeminiInteractionsResponse,
} from './gemini-interactions-api.js';

const DEFAULT_SETTINGS = resolveAdapterSettings(
  GEMINI_PROVIDER,
  GEMINI_INTERACTIONS_API_FAMILY,
  GEMINI_INTERACTIONS_ADAPTER_REVISION,
);

/**
 * Parses the pending `function_call` steps of an interaction into `ToolCall`s, in step order, with
 * `arguments` as the SDK-parsed object (`json_value`), checked against the adapter's size limits;
 * the dispatcher validates it per tool with the guard. A `function_call` step already answered by
 * a `function_result` step in the same interaction is not pending and is skipped; other step
 * types (user input, thoughts, model output, server tools) are ignored.
 *
 * The interaction is untrusted and validated by hand: it never throws. It is refused
 * (`MALFORMED_TOOL_CALL`) for a missing interaction id, missing steps while the status is
 * `requires_action`, a repeated or missing step id, an empty name, `arguments` that are not an
 * object, or more than `maxCalls` calls; and (`INVALID_ARGUMENTS`) for arguments over the size
 * limits.
 */
export function parseGeminiInteractionsToolCalls(
  interaction: GeminiInteractionsResponse,
  settings: AdapterSettings = DEFAULT_SETTINGS,
): ParseToolCallsOutcome {
  try {
    const interactionId = readOwnData(interaction, 'id');
    if (!isWellFormedIdentifier(interactionId, MAX_PROVIDER_ID_LENGTH)) {
      return rejectMalformedToolCall('malformed_response');
    }
    const steps = readOwnData(interaction, 'steps');
    if (steps === undefined && readOwnData(interaction, 'status') !== 'requires_action') {
      return { ok: true, response_id: interactionId, calls: [] };
    }
    if (!Array.isArray(steps)) return rejectMalformedToolCall('malformed_response');

    const answered = new Set<unknown>();
    for (let index = 0; index < steps.length; index++) {
      const step = readOwnData(steps, index);
      if (typeof step !== 'object' || step === null) return rejectMalformedToolCall('malformed_response');
      if (readOwnData(step, 'type') === 'function_result') answered.add(readOwnData(step, 'call_id'));
    }

    const collector = createToolCallCollector(settings.identity, interactionId, settings.limits);
    for (let index = 0; index < steps.length; index++) {
      const step = readOwnData(steps, index);
      if (readOwnData(step, 'type') !== 'function_call') continue;
      const callId = readOwnData(step, 'id');
      if (typeof callId === 'string' && callId !== '' && answered.has(callId)) continue;
      const callArguments = readOwnData(step, 'arguments');
      if (!isPlainObject(callArguments)) return rejectMalformedToolCall('malformed_response');
      const rejection = collector.add(callId, readOwnData(step, 'name'), {
        format: 'json_value',
        value: callArguments,
      });
      if (rejection !== null) return rejection;
    }
    return collector.finish();
  } catch {
    // Only a hostile object (a proxy) can throw above; it is refused like any malformed interaction.
    return rejectMalformedToolCall('malformed_response');
  }
}
