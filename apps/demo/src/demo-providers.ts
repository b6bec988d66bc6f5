import { createAnthropicMessagesAdapter } from '@toolseal/adapter-anthropic';
import { createGeminiInteractionsAdapter } from '@toolseal/adapter-gemini';
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import type { FormatFailure, ModelError, ResultVerifier, SealedResult, ToolCall } from '@toolseal/contracts';

/** One tool call the scripted model makes: a short id (unique in its turn), the tool, the arguments. */
export interface ScriptedCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** What the provider receives for a turn, item by item. */
export type FormattedTurn =
  | {
      ok: true;
      /** The whole payload, as it would be sent. */
      payload: unknown;
      /** The payload item that answers each call, by call id. */
      items: ReadonlyMap<string, unknown>;
    }
  | { ok: false; failures: FormatFailure[] };

/** One provider API as the demo drives it: constructed responses in, verified payloads out. */
export interface DemoProvider {
  /** `openai`, `anthropic`, `gemini`. */
  readonly name: string;
  /** Human name of the API. */
  readonly label: string;
  /** Builds the provider response the scripted model "sent" (constructed from the adapter's wire types). */
  respond(responseId: string, calls: readonly ScriptedCall[]): unknown;
  /** The adapter's parse of that response. */
  parse(response: unknown): { ok: true; calls: ToolCall[] } | { ok: false; error: ModelError };
  /** The adapter's verified serialization of the turn's results. */
  format(calls: readonly ToolCall[], results: readonly SealedResult[], verify: ResultVerifier): FormattedTurn;
  /** The call id the provider would give a scripted call. */
  callId(call: ScriptedCall): string;
}

function parsed(outcome: { ok: true; calls: ToolCall[] } | { ok: false; error: ModelError }) {
  return outcome.ok ? { ok: true as const, calls: outcome.calls } : { ok: false as const, error: outcome.error };
}

function openAI(): DemoProvider {
  const adapter = createOpenAIResponsesAdapter();
  const callId = (call: ScriptedCall): string => `call_${call.id}`;
  return {
    name: 'openai',
    label: 'OpenAI Responses',
    callId,
    respond: (responseId, calls) => ({
      id: responseId,
      object: 'response',
      status: 'completed',
      output: calls.map((call) => ({
        type: 'function_call',
        id: `fc_${call.id}`,
        call_id: callId(call),
        name: call.name,
        arguments: JSON.stringify(call.arguments),
        status: 'completed',
      })),
    }),
    parse: (response) => parsed(adapter.parseToolCalls(response as Parameters<typeof adapter.parseToolCalls>[0])),
    format: (calls, results, verify) => {
      const outcome = adapter.formatToolResults({ calls, results, verify, options: { continuation: 'previous_response_id' } });
      if (!outcome.ok) return outcome;
      const items = new Map<string, unknown>();
      for (const item of outcome.payload.input) if (item.type === 'function_call_output') items.set(item.call_id, item);
      return { ok: true, payload: outcome.payload, items };
    },
  };
}

function anthropic(): DemoProvider {
  const adapter = createAnthropicMessagesAdapter();
  const callId = (call: ScriptedCall): string => `toolu_${call.id}`;
  return {
    name: 'anthropic',
    label: 'Anthropic Messages',
    callId,
    respond: (responseId, calls) => ({
      id: responseId,
      type: 'message',
      role: 'assistant',
      stop_reason: 'tool_use',
      content: calls.map((call) => ({ type: 'tool_use', id: callId(call), name: call.name, input: structuredClone(call.arguments) })),
    }),
    parse: (response) => parsed(adapter.parseToolCalls(response as Parameters<typeof adapter.parseToolCalls>[0])),
    format: (calls, results, verify) => {
      const outcome = adapter.formatToolResults({ calls, results, verify, options: {} });
      if (!outcome.ok) return outcome;
      const items = new Map<string, unknown>();
      for (const block of outcome.payload.content) if (block.type === 'tool_result') items.set(block.tool_use_id, block);
      return { ok: true, payload: outcome.payload, items };
    },
  };
}

function gemini(): DemoProvider {
  const adapter = createGeminiInteractionsAdapter();
  const callId = (call: ScriptedCall): string => `fc-${call.id}`;
  return {
    name: 'gemini',
    label: 'Gemini Interactions',
    callId,
    respond: (responseId, calls) => ({
      id: responseId,
      status: 'requires_action',
      steps: calls.map((call) => ({ type: 'function_call', id: callId(call), name: call.name, arguments: structuredClone(call.arguments) })),
    }),
    parse: (response) => parsed(adapter.parseToolCalls(response as Parameters<typeof adapter.parseToolCalls>[0])),
    format: (calls, results, verify) => {
      const outcome = adapter.formatToolResults({ calls, results, verify, options: { continuation: 'previous_interaction_id' } });
      if (!outcome.ok) return outcome;
      const items = new Map<string, unknown>();
      for (const step of outcome.payload.input) if (step.type === 'function_result') items.set(step.call_id, step);
      return { ok: true, payload: outcome.payload, items };
    },
  };
}

/** The three provider APIs the demo speaks. */
export function createDemoProviders(): DemoProvider[] {
  return [openAI(), anthropic(), gemini()];
}
