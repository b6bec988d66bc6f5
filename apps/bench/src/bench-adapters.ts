// Adapter cost per call: parse one provider response with one get_order call, and format its
// sealed result back (with the verifier stubbed, to isolate the adapter, and with the real one).
import { createAnthropicMessagesAdapter } from '@toolseal/adapter-anthropic';
import { createGeminiInteractionsAdapter } from '@toolseal/adapter-gemini';
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import type { ProviderAdapter, ResultVerifier, SealedResult, ToolCall } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { nodeCryptoBackend } from '@toolseal/digests/node';
import { createResultVerifier, createToolRegistry, sealResult, type TrustedContext } from '@toolseal/result';
import { GET_ORDER_ARGUMENTS_TEXT, NOW, PRINCIPAL, getOrderOutput, loadSharedToolSpecs } from './bench-tools.js';
import { measureGroup } from './measure.js';
import type { Report } from './report.js';

interface AdapterCase<TResponse, TPayload, TOptions> {
  name: string;
  adapter: ProviderAdapter<TResponse, TPayload, TOptions>;
  response: TResponse;
  options: TOptions;
}

const passThrough: ResultVerifier = () => ({ ok: true });

export async function benchAdapters(report: Report): Promise<void> {
  const section = 'Adapters, one get_order call per turn (node:crypto digests)';
  const registry = createToolRegistry(loadSharedToolSpecs());
  const digester = createDigester({ backend: nodeCryptoBackend });
  const args = JSON.parse(GET_ORDER_ARGUMENTS_TEXT) as { order_id: string };

  const entries: { name: string; operation: () => unknown }[] = [];
  const addCase = <TResponse, TPayload, TOptions>(adapterCase: AdapterCase<TResponse, TPayload, TOptions>): void => {
    const { adapter, response, options } = adapterCase;
    const parsed = adapter.parseToolCalls(response);
    if (!parsed.ok) throw new Error(`bench: ${adapterCase.name} refused the fixture: ${parsed.error.code}`);
    const calls: readonly ToolCall[] = parsed.calls;
    const trusted = new Map<string, TrustedContext>();
    const results: SealedResult[] = calls.map((call) => {
      const context = {
        provider: call.provider,
        api_family: call.api_family,
        response_id: call.response_id,
        call_id: call.call_id,
        adapter_revision: call.adapter_revision,
        operation_id: `op-${call.call_id}`,
        idempotency_key: null,
      };
      const record: TrustedContext = { registry, tool_name: call.tool_name, principal: PRINCIPAL, call: context, arguments: args, digester };
      trusted.set(call.call_id, record);
      return sealResult({ ...record, subject: { kind: 'data', output: getOrderOutput(args.order_id) }, execution: { delivery: 'fresh' }, now: NOW }).sealed;
    });
    const verify = createResultVerifier((call) => trusted.get(call.call_id));
    const formatted = adapter.formatToolResults({ calls, results, verify, options });
    if (!formatted.ok) throw new Error(`bench: ${adapterCase.name} refused to format: ${JSON.stringify(formatted.failures)}`);
    entries.push({ name: `${adapterCase.name} parseToolCalls`, operation: () => adapter.parseToolCalls(response) });
    entries.push({
      name: `${adapterCase.name} formatToolResults (verifier stubbed)`,
      operation: () => adapter.formatToolResults({ calls, results, verify: passThrough, options }),
    });
    entries.push({
      name: `${adapterCase.name} formatToolResults (with verifyResult)`,
      operation: () => adapter.formatToolResults({ calls, results, verify, options }),
    });
  };
  // Variables, not literals in the call: the adapters read only the fields their types name.
  const openAIResponse = {
    id: 'resp_bench_0001',
    output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_order', arguments: GET_ORDER_ARGUMENTS_TEXT, status: 'completed' }],
  };
  const anthropicMessage = {
    id: 'msg_bench_0001',
    content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'get_order', input: { order_id: 'ORDER-C7' } }],
    stop_reason: 'tool_use',
  };
  const geminiInteraction = {
    id: 'v1_bench_0001',
    status: 'requires_action',
    steps: [{ type: 'function_call' as const, id: 'fc-1', name: 'get_order', arguments: { order_id: 'ORDER-C7' } }],
  };
  addCase({ name: 'OpenAI Responses', adapter: createOpenAIResponsesAdapter(), response: openAIResponse, options: { continuation: 'previous_response_id' } });
  addCase({ name: 'Anthropic Messages', adapter: createAnthropicMessagesAdapter(), response: anthropicMessage, options: {} });
  addCase({ name: 'Gemini Interactions', adapter: createGeminiInteractionsAdapter(), response: geminiInteraction, options: { continuation: 'previous_interaction_id' } });
  const measured = await measureGroup(entries);
  for (const measurement of measured) report.addMeasurement(section, measurement, 'calls/s');
}
