import {
  correlateToolResults,
  formatOptionsOf,
  isWellFormedIdentifier,
  readOwnData,
  type AdapterSettings,
} from '@toolseal/adapter-core';
import type { FormatFailure, FormatToolResultsInput, FormatToolResultsOutcome, ToolCall } from '@toolseal/contracts';
import {
  MAX_FUNCTION_CALL_OUTPUT_LENGTH,
  MAX_OPENAI_CALL_ID_LENGTH,
  MAX_RESPONSE_OUTPUT_ITEMS,
  type OpenAIResponsesFormatOptions,
  type OpenAIResponsesFunctionCall,
  type OpenAIResponsesFunctionCallOutput,
  type OpenAIResponsesPayload,
} from './openai-responses-api.js';
import { OPENAI_RESPONSES_DEFAULT_SETTINGS } from './openai-responses-default-settings.js';
import { acceptedFunctionCallItemId } from './parse-openai-responses-tool-calls.js';

function notTheParsedOutput(): TypeError {
  return new TypeError(
    'stateless continuation: responseOutput must be the output of the response the calls were parsed from',
  );
}

/**
 * Whether `text` is longer than `MAX_FUNCTION_CALL_OUTPUT_LENGTH` as JSON Schema's `maxLength`
 * counts: Unicode code points, so a surrogate pair is one character. The UTF-16 length is an upper
 * bound, enough for every text within it; only a longer one is counted, stopping once within.
 */
function exceedsOutputLength(text: string): boolean {
  const units = text.length;
  if (units <= MAX_FUNCTION_CALL_OUTPUT_LENGTH) return false;
  // Code points = units - surrogate pairs. The text is canonical JSON, with no lone surrogate.
  let characters = units;
  for (let index = 0; index < units - 1; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        characters--;
        index++;
        if (characters <= MAX_FUNCTION_CALL_OUTPUT_LENGTH) return false;
      }
    }
  }
  return characters > MAX_FUNCTION_CALL_OUTPUT_LENGTH;
}

/**
 * Rebuilds the `function_call` items of a stateless continuation from the parsed calls, taking
 * only the item id from `responseOutput`. Throws a `TypeError` when `responseOutput` cannot be the
 * output the calls were parsed from: not an array, longer than `MAX_RESPONSE_OUTPUT_ITEMS`, a hole
 * or an item that is not an object, two items of one call id, or a call's item missing, with
 * another name or arguments, or one `parseToolCalls` refuses (unfinished, namespaced, made by a
 * program, an item id that is not a well-formed identifier or is hidden behind a getter), or a
 * Proxy that throws when read. `parseToolCalls` refuses every one of these, so the host passed the
 * wrong response. The length is read once and checked before the loop, which never reads it
 * again, so a sparse array claiming billions of items costs nothing; a length that is not a
 * non-negative integer (only a Proxy answers so) is refused without being converted.
 */
function echoFunctionCalls(calls: readonly ToolCall[], options: OpenAIResponsesFormatOptions): OpenAIResponsesFunctionCall[] {
  try {
    // `options.responseOutput` is read here, inside the catch, as everything read from it is.
    return rebuildFunctionCalls(calls, (options as { responseOutput?: unknown }).responseOutput);
  } catch {
    // A Proxy (or a revoked one) whose traps throw on a later read than parseToolCalls made: not
    // an output this formatter can echo, so the same TypeError as every other mismatch.
    throw notTheParsedOutput();
  }
}

/** `echoFunctionCalls`, letting whatever a hostile `responseOutput` throws through. */
function rebuildFunctionCalls(calls: readonly ToolCall[], responseOutput: unknown): OpenAIResponsesFunctionCall[] {
  if (!Array.isArray(responseOutput)) throw notTheParsedOutput();
  const output: readonly unknown[] = responseOutput;
  // Read once and checked before the loop, which never reads it again: a Proxy cannot claim a
  // short output for the check and a long one for the walk. A real array's length is always an
  // integer; anything else (only a Proxy answers so) is refused without being converted.
  const count: unknown = output.length;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || count > MAX_RESPONSE_OUTPUT_ITEMS) {
    throw notTheParsedOutput();
  }
  const itemsByCallId = new Map<string, object>();
  for (let index = 0; index < count; index++) {
    const item = readOwnData(output, index);
    if (typeof item !== 'object' || item === null) throw notTheParsedOutput();
    const callId = readOwnData(item, 'call_id');
    if (readOwnData(item, 'type') === 'function_call' && typeof callId === 'string') {
      // Two items of one call id: `parseToolCalls` refuses that output (duplicate_call_id).
      if (itemsByCallId.has(callId)) throw notTheParsedOutput();
      itemsByCallId.set(callId, item);
    }
  }
  const echoedItemIds = new Set<string>();
  return calls.map((call) => {
    const item = itemsByCallId.get(call.call_id);
    if (
      item === undefined ||
      call.arguments.format !== 'json_text' ||
      readOwnData(item, 'name') !== call.tool_name ||
      readOwnData(item, 'arguments') !== call.arguments.text
    ) {
      throw notTheParsedOutput();
    }
    // The checks `parseToolCalls` made of the item; the id is echoed to OpenAI as read and checked here.
    const itemId = acceptedFunctionCallItemId(item);
    if (itemId === false) throw notTheParsedOutput();
    // Two echoed items of one id: `parseToolCalls` refuses that output too.
    if (typeof itemId === 'string') {
      if (echoedItemIds.has(itemId)) throw notTheParsedOutput();
      echoedItemIds.add(itemId);
    }
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
 * (missing, duplicate, unknown, foreign or unverified result) refuses the whole turn. So does a
 * verified result whose canonical text is longer than OpenAI's `function_call_output.output`
 * allows (`MAX_FUNCTION_CALL_OUTPUT_LENGTH`, 10,485,760 characters): a package this adapter cannot
 * send, refused as `verification_failed` with `malformed_package` (the catalogued reasons hold no
 * closer one), one failure per such result. Outputs come in call order.
 *
 * - `previous_response_id`: `{ previous_response_id, input: [outputs] }`.
 * - `stateless`: `{ input: [function_call items, outputs] }`, the calls echoed in response order.
 *
 * Never throws on bad results. Throws a `TypeError` on host misuse: `options` or `calls` missing or
 * not what they must be, no calls, calls from several responses, a call id OpenAI does not take
 * back (over `MAX_OPENAI_CALL_ID_LENGTH` characters, or with a control or lone surrogate:
 * `parseToolCalls` never returns such a call), an unknown continuation, or a `responseOutput` that
 * cannot be the output the calls were parsed from.
 */
export function convertToOpenAIResponsesFunctionCallOutputs(
  input: FormatToolResultsInput<OpenAIResponsesFormatOptions>,
  settings: AdapterSettings = OPENAI_RESPONSES_DEFAULT_SETTINGS,
): FormatToolResultsOutcome<OpenAIResponsesPayload> {
  const options = formatOptionsOf(input);
  // Read once: the branch below and the check agree whatever a getter answers.
  const { continuation } = options;
  if (continuation !== 'previous_response_id' && continuation !== 'stateless') {
    throw new TypeError("options.continuation must be 'previous_response_id' or 'stateless'");
  }
  const correlated = correlateToolResults(settings.identity, input, settings.limits);
  if (!correlated.ok) return correlated;
  // OpenAI answers such an output with a 400: a call parseToolCalls refused, built by the host.
  for (const { call } of correlated.results) {
    const callId: string = call.call_id;
    if (!isWellFormedIdentifier(callId, MAX_OPENAI_CALL_ID_LENGTH)) {
      throw new TypeError(
        `formatToolResults: call id ${JSON.stringify(String(callId).slice(0, 80))} is not one OpenAI takes back ` +
          `(at most ${MAX_OPENAI_CALL_ID_LENGTH} characters, no controls): calls must come from parseToolCalls`,
      );
    }
  }
  // OpenAI refuses a longer output: the turn is refused whole, as for any other result it cannot take.
  const overlong: FormatFailure[] = correlated.results
    .filter((result) => exceedsOutputLength(result.modelResultText))
    .map((result) => ({ call_id: result.call.call_id, reason: 'verification_failed', verify_reasons: ['malformed_package'] }));
  if (overlong.length > 0) return { ok: false, failures: overlong };
  const outputs = correlated.results.map(
    (result): OpenAIResponsesFunctionCallOutput => ({
      type: 'function_call_output',
      call_id: result.call.call_id,
      output: result.modelResultText,
    }),
  );
  if (continuation === 'previous_response_id') {
    return { ok: true, payload: { previous_response_id: correlated.response_id, input: outputs } };
  }
  // The calls as correlateToolResults read them once, in call order.
  const calls = correlated.results.map((result) => result.call);
  const echoed = echoFunctionCalls(calls, options);
  return { ok: true, payload: { input: [...echoed, ...outputs] } };
}
