// One turn through each real adapter: provider response → parseToolCalls → dispatch →
// formatToolResults. The provider responses are constructed from each adapter's wire types, as a
// model would answer with three parallel tool calls (no network).
import { createAnthropicMessagesAdapter, type AnthropicMessagesResponse } from '@toolseal/adapter-anthropic';
import { createGeminiInteractionsAdapter, type GeminiInteractionsResponse } from '@toolseal/adapter-gemini';
import { createOpenAIResponsesAdapter, type OpenAIResponsesResponse } from '@toolseal/adapter-openai';
import { findProtectedValues } from '@toolseal/adapter-testing';
import type { ModelResult, ToolCall } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, type TestHost } from './__fixtures__/test-host.js';
import type { Approval } from './approval.js';
import type { DispatchedTurn } from './dispatch-types.js';

/** The three calls of the turn: provider call id, tool, arguments. */
const TURN = [
  { id: 'c7', name: 'get_order', input: { order_id: 'ORDER-C7' } },
  { id: 'm9', name: 'get_order', input: { order_id: 'ORDER-M9' } },
  { id: 'refund', name: 'create_refund_draft', input: BASELINE_REFUND },
] as const;

/** Expected model-visible outcome per call, from the specification: read, neutral refusal, approved write. */
const EXPECTED: Record<string, Pick<ModelResult, 'status'> & { code: string | null; delivery: string }> = {
  c7: { status: 'succeeded', code: null, delivery: 'fresh' },
  m9: { status: 'failed', code: 'NOT_FOUND', delivery: 'fresh' },
  refund: { status: 'succeeded', code: null, delivery: 'fresh' },
};

async function approvalFor(host: TestHost, key: string): Promise<Approval> {
  const digest = host.digester.requestDigest({
    tenant_id: CEDAR_DRAFTER.tenant_id,
    subject_id: CEDAR_DRAFTER.subject_id,
    tool_name: 'create_refund_draft',
    arguments: BASELINE_REFUND,
    input_revision: 'refund-proposal-v1',
    output_revision: 'refund-draft-output-v1',
    effect_revision: 'refund-draft-effect-v1',
  });
  return { request_sha256: digest, tool_name: 'create_refund_draft', idempotency_key: key, approved_by: 'supervisor-1', expires_at: host.clock.now() + 60_000 };
}

function checkTurn(turn: DispatchedTurn, calls: readonly ToolCall[], prefix: string): void {
  expect(calls.map((call) => call.call_id)).toEqual(TURN.map(({ id }) => `${prefix}${id}`));
  for (const { id } of TURN) {
    const result = turn.results.find((candidate) => candidate.call_id === `${prefix}${id}`);
    const model = result?.sealed.model_result;
    expect([model?.status, model?.error?.code ?? null, model?.execution.delivery]).toEqual([
      EXPECTED[id]?.status,
      EXPECTED[id]?.code,
      EXPECTED[id]?.delivery,
    ]);
  }
}

/** Everything the provider receives must be exactly the canonical model results, nothing protected. */
function checkPayload(payloadText: string, turn: DispatchedTurn): void {
  expect(findProtectedValues(payloadText, turn.sealed)).toEqual([]);
  for (const result of turn.results) expect(payloadText).toContain(JSON.stringify(result.canonical_model_result).slice(1, -1));
}

describe('a turn through each real adapter', () => {
  it('OpenAI Responses: function_call items → function_call_output items', async () => {
    const host = createTestHost();
    const adapter = createOpenAIResponsesAdapter();
    const response: OpenAIResponsesResponse & { output: { type: string; id: string; call_id: string; name: string; arguments: string }[] } = {
      id: 'resp_e2e',
      output: TURN.map(({ id, name, input }) => ({
        type: 'function_call',
        id: `fc_${id}`,
        call_id: `call_${id}`,
        name,
        arguments: JSON.stringify(input),
      })),
    };
    const parsed = adapter.parseToolCalls(response);
    if (!parsed.ok) throw new Error('parse failed');
    const turn = await host.dispatcher.dispatch(parsed.calls, {
      principal: CEDAR_DRAFTER,
      approvals: [await approvalFor(host, 'e2e-openai')],
    });
    checkTurn(turn, parsed.calls, 'call_');
    const formatted = adapter.formatToolResults({
      calls: parsed.calls,
      results: [...turn.sealed].reverse(),
      verify: turn.verify,
      options: { continuation: 'previous_response_id' },
    });
    if (!formatted.ok) throw new Error(JSON.stringify(formatted.failures));
    const payload = formatted.payload;
    expect('previous_response_id' in payload && payload.previous_response_id).toBe('resp_e2e');
    expect(payload.input.map((item) => item.call_id)).toEqual(['call_c7', 'call_m9', 'call_refund']);
    for (const item of payload.input) {
      const result = turn.results.find((candidate) => candidate.call_id === item.call_id);
      expect(item).toEqual({ type: 'function_call_output', call_id: item.call_id, output: result?.canonical_model_result });
    }
    checkPayload(JSON.stringify(payload), turn);
  });

  it('the turn vouches for its own frozen packages only; copies format the same through the full path', async () => {
    const host = createTestHost();
    const adapter = createOpenAIResponsesAdapter();
    const response = {
      id: 'resp_own',
      output: TURN.map(({ id, name, input }) => ({ type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name, arguments: JSON.stringify(input) })),
    };
    const parsed = adapter.parseToolCalls(response);
    if (!parsed.ok) throw new Error('parse failed');
    const turn = await host.dispatcher.dispatch(parsed.calls, { principal: CEDAR_DRAFTER, approvals: [await approvalFor(host, 'e2e-own')] });
    for (const [index, call] of parsed.calls.entries()) {
      const sealed = turn.sealed[index];
      if (sealed === undefined) throw new Error('no package');
      expect(Object.isFrozen(sealed.model_result) && Object.isFrozen(sealed.protected_audit)).toBe(true);
      expect(turn.verify.canonicalTextOf?.(sealed, call)).toBe(turn.results[index]?.canonical_model_result);
      expect(turn.verify.canonicalTextOf?.(structuredClone(sealed), call)).toBeUndefined();
    }
    const format = (results: typeof turn.sealed) =>
      adapter.formatToolResults({ calls: parsed.calls, results, verify: turn.verify, options: { continuation: 'previous_response_id' } });
    const own = format(turn.sealed);
    const copies = format(turn.sealed.map((sealed) => structuredClone(sealed)));
    expect(own.ok).toBe(true);
    expect(copies).toEqual(own);

    // The audit bodies were appended as text assembled from the seal's canonical texts: the stored
    // text is exactly the canonical form of the body object each answer reports.
    for (const result of turn.results) {
      const stored = (await host.stores.auditLog.query({ kind: 'sealed_call', call_id: result.call_id }, { limit: 5 })).entries;
      expect(stored).toHaveLength(1);
      const entry = stored[0]!;
      expect(entry.sequence).toBe(result.audit_entry?.sequence);
      expect(entry.body['protected_audit']).toEqual(result.sealed.protected_audit);
      expect(entry.canonical).toContain(`{"body":${canonicalize(entry.body)},`);
    }
    expect((await host.stores.auditLog.verifyChain()).ok).toBe(true);
  });

  it('Anthropic Messages: tool_use blocks → one user message of tool_result blocks', async () => {
    const host = createTestHost();
    const adapter = createAnthropicMessagesAdapter();
    const content: { type: string; [key: string]: unknown }[] = [
      { type: 'text', text: 'Let me check the order and draft the refund.' },
      ...TURN.map(({ id, name, input }) => ({ type: 'tool_use', id: `toolu_${id}`, name, input: structuredClone(input) })),
    ];
    const response: AnthropicMessagesResponse = { id: 'msg_e2e', stop_reason: 'tool_use', content };
    const parsed = adapter.parseToolCalls(response);
    if (!parsed.ok) throw new Error('parse failed');
    expect(parsed.calls.every((call) => call.arguments.format === 'json_value')).toBe(true);
    const turn = await host.dispatcher.dispatch(parsed.calls, {
      principal: CEDAR_DRAFTER,
      approvals: [await approvalFor(host, 'e2e-anthropic')],
    });
    checkTurn(turn, parsed.calls, 'toolu_');
    const formatted = adapter.formatToolResults({ calls: parsed.calls, results: turn.sealed, verify: turn.verify, options: {} });
    if (!formatted.ok) throw new Error(JSON.stringify(formatted.failures));
    const blocks = formatted.payload.content;
    expect(formatted.payload.role).toBe('user');
    expect(blocks.map((block) => (block.type === 'tool_result' ? [block.tool_use_id, block.is_error] : block.type))).toEqual([
      ['toolu_c7', false],
      ['toolu_m9', true],
      ['toolu_refund', false],
    ]);
    for (const block of blocks) {
      if (block.type !== 'tool_result') continue;
      const result = turn.results.find((candidate) => candidate.call_id === block.tool_use_id);
      expect(block.content).toEqual([{ type: 'text', text: result?.canonical_model_result }]);
    }
    checkPayload(JSON.stringify(formatted.payload), turn);
  });

  it('Gemini Interactions: function_call steps → function_result steps', async () => {
    const host = createTestHost();
    const adapter = createGeminiInteractionsAdapter();
    const response: GeminiInteractionsResponse & { steps: { type: string; [key: string]: unknown }[] } = {
      id: 'v1_e2e',
      status: 'requires_action',
      steps: TURN.map(({ id, name, input }) => ({ type: 'function_call', id: `fc-${id}`, name, arguments: structuredClone(input) })),
    };
    const parsed = adapter.parseToolCalls(response);
    if (!parsed.ok) throw new Error('parse failed');
    const turn = await host.dispatcher.dispatch(parsed.calls, {
      principal: CEDAR_DRAFTER,
      approvals: [await approvalFor(host, 'e2e-gemini')],
    });
    checkTurn(turn, parsed.calls, 'fc-');
    const formatted = adapter.formatToolResults({
      calls: parsed.calls,
      results: turn.sealed,
      verify: turn.verify,
      options: { continuation: 'previous_interaction_id' },
    });
    if (!formatted.ok) throw new Error(JSON.stringify(formatted.failures));
    const payload = formatted.payload;
    expect('previous_interaction_id' in payload && payload.previous_interaction_id).toBe('v1_e2e');
    for (const step of payload.input) {
      if (step.type !== 'function_result') throw new Error('unexpected step');
      const result = turn.results.find((candidate) => candidate.call_id === step.call_id);
      expect(step).toEqual({
        type: 'function_result',
        call_id: step.call_id,
        name: result?.tool_name,
        result: [{ type: 'text', text: result?.canonical_model_result }],
        is_error: result?.sealed.model_result.status !== 'succeeded',
      });
    }
    checkPayload(JSON.stringify(payload), turn);
  });
});
