// The attacks of specification 000 ("Swapping result A onto call B, fabricating any well-formed
// digest, or altering provenance or error text must fail"; practice items 3 and 4), run against
// packages the dispatcher sealed and the OpenAI adapter's verified serialization.
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import type { SealedResult, ToolCall } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { CEDAR_DRAFTER, createTestHost } from './__fixtures__/test-host.js';
import type { DispatchedTurn } from './dispatch-types.js';

const adapter = createOpenAIResponsesAdapter();
const context = { principal: CEDAR_DRAFTER };
const SECRET_TOKEN = 'tok_live_9c1d7e3f5a2b4c6d';

async function parsedTurn(host = createTestHost()): Promise<{ calls: ToolCall[]; turn: DispatchedTurn }> {
  const parsed = adapter.parseToolCalls({
    id: 'resp_attack',
    output: [
      { type: 'function_call', call_id: 'call_order', name: 'get_order', arguments: '{"order_id":"ORDER-C7"}' },
      { type: 'function_call', call_id: 'call_kb', name: 'kb_search', arguments: '{"query":"refund policy"}' },
    ] as never,
  });
  if (!parsed.ok) throw new Error('parse failed');
  return { calls: parsed.calls, turn: await host.dispatcher.dispatch(parsed.calls, context) };
}

function format(calls: ToolCall[], results: readonly SealedResult[], turn: DispatchedTurn) {
  return adapter.formatToolResults({ calls, results, verify: turn.verify, options: { continuation: 'previous_response_id' } });
}

function failuresOf(outcome: ReturnType<typeof format>): Record<string, string[]> {
  if (outcome.ok) throw new Error('the adapter serialized a tampered turn');
  return Object.fromEntries(outcome.failures.map((failure) => [failure.call_id, failure.verify_reasons]));
}

describe('attacks on sealed results', () => {
  it('serializes the untouched turn (control)', async () => {
    const { calls, turn } = await parsedTurn();
    expect(format(calls, turn.sealed, turn).ok).toBe(true);
  });

  it('rejects a result swap across calls: model_result A under call B', async () => {
    const { calls, turn } = await parsedTurn();
    const [order, kb] = structuredClone(turn.sealed) as [SealedResult, SealedResult];
    [order.model_result, kb.model_result] = [kb.model_result, order.model_result];
    const failures = failuresOf(format(calls, [order, kb], turn));
    expect(failures['call_order']).toEqual(expect.arrayContaining(['output_contract', 'provenance', 'result_digest', 'call_binding']));
    expect(failures['call_kb']).toEqual(expect.arrayContaining(['output_contract', 'provenance', 'result_digest', 'call_binding']));
  });

  it('rejects a whole package moved onto another call, and a package from an earlier turn', async () => {
    const host = createTestHost();
    const { calls, turn } = await parsedTurn(host);
    const [order, kb] = structuredClone(turn.sealed) as [SealedResult, SealedResult];
    order.protected_audit.provider_context.call_id = 'call_kb';
    kb.protected_audit.provider_context.call_id = 'call_order';
    const moved = failuresOf(format(calls, [order, kb], turn));
    expect(moved['call_kb']).toEqual(expect.arrayContaining(['tool_contract', 'request_digest', 'call_binding']));

    // Same tool, same arguments, same call ids, one turn later: another operation, so it does not bind.
    const later = await parsedTurn(host);
    const replayed = failuresOf(format(later.calls, turn.sealed, later.turn));
    expect(replayed['call_order']).toEqual(expect.arrayContaining(['downstream', 'call_binding']));
  });

  it('rejects a forged digest: changed data with digests recomputed without the key, or any well-formed hex', async () => {
    const { calls, turn } = await parsedTurn();
    const forged = structuredClone(turn.sealed) as [SealedResult, SealedResult];
    const order = forged[0];
    if (order.model_result.data === null) throw new Error('no data');
    order.model_result.data['status'] = 'refunded';
    const attacker = createDigester(); // knows the algorithm, not the host's key
    const binding = order.protected_audit.binding;
    binding.result_sha256 = attacker.resultDigest(order.model_result);
    binding.call_binding_sha256 = attacker.callBindingDigest({
      ...order.protected_audit.provider_context,
      operation_id: order.protected_audit.downstream.operation_id,
      idempotency_key: null,
      tool_contract: order.protected_audit.tool_contract,
      request_sha256: binding.request_sha256,
      result_sha256: binding.result_sha256,
    });
    expect(failuresOf(format(calls, forged, turn))['call_order']).toEqual(['result_digest', 'call_binding']);

    const shaped = structuredClone(turn.sealed) as [SealedResult, SealedResult];
    shaped[1].protected_audit.binding.result_sha256 = 'f'.repeat(64);
    expect(failuresOf(format(calls, shaped, turn))['call_kb']).toEqual(['result_digest']);
  });

  it('rejects an injected top-level status: at the seal (handler) and after it (storage)', async () => {
    const host = createTestHost();
    const original = host.impl.get_order;
    host.impl.get_order = async (input) => ({ ...(await original(input)), status: 'succeeded' }) as never;
    const { calls, turn } = await parsedTurn(host);
    const order = turn.results[0];
    expect(order?.gate).toBe('output_contract');
    expect(order?.sealed.model_result.status).toBe('failed');
    expect(order?.sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    expect(order?.canonical_model_result).not.toContain('ORDER-C7');

    // A storage attacker flips the error result to "succeeded".
    const flipped = structuredClone(turn.sealed) as [SealedResult, SealedResult];
    flipped[0].model_result.status = 'succeeded';
    expect(failuresOf(format(calls, flipped, turn))['call_order']).toEqual(
      expect.arrayContaining(['model_result_schema', 'result_digest', 'call_binding']),
    );
  });

  it('rejects a nested token: at the seal (handler) and after it (storage); the token never reaches the payload', async () => {
    const host = createTestHost();
    const original = host.impl.kb_search;
    host.impl.kb_search = async (input) => {
      const outcome = (await original(input)) as unknown as { data: { hits: Record<string, unknown>[] } };
      const hit = outcome.data.hits[0] as Record<string, unknown>;
      // Nested inside data/hits/0, within the tool's depth limit: only the key scan and schema stop it.
      hit['access_token'] = SECRET_TOKEN;
      return outcome as never;
    };
    const { calls, turn } = await parsedTurn(host);
    const kb = turn.results[1];
    expect(kb?.gate).toBe('output_contract');
    expect(kb?.sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    expect(kb?.violations.map((violation) => violation.rule)).toContain('sensitive_key');
    const formatted = format(calls, turn.sealed, turn);
    expect(formatted.ok).toBe(true);
    expect(JSON.stringify(formatted)).not.toContain(SECRET_TOKEN);
    expect(JSON.stringify(await host.stores.tamper.readRows())).not.toContain(SECRET_TOKEN);

    const clean = await parsedTurn();
    const injected = structuredClone(clean.turn.sealed) as [SealedResult, SealedResult];
    const hits = injected[1].model_result.data?.['hits'] as Record<string, unknown>[];
    (hits[0] as Record<string, unknown>)['session_token'] = SECRET_TOKEN;
    const outcome = format(clean.calls, injected, clean.turn);
    expect(failuresOf(outcome)['call_kb']).toEqual(expect.arrayContaining(['output_contract', 'result_digest']));
    expect(JSON.stringify(outcome)).not.toContain(SECRET_TOKEN);
  });

  it('keeps canonical_model_result equal to the canonical form of model_result', async () => {
    const { turn } = await parsedTurn();
    for (const result of turn.results) expect(result.canonical_model_result).toBe(canonicalize(result.sealed.model_result));
  });
});
