// Whatever the model proposes and whatever a handler returns, the dispatcher answers every call
// with one sealed, verifiable, catalogued result, and never throws.
import fc from 'fast-check';
import { ERROR_CATALOG } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { CEDAR_DRAFTER, createTestHost, toolCall } from './__fixtures__/test-host.js';

const context = { principal: CEDAR_DRAFTER };
const host = createTestHost();

function checkResult(result: { sealed: { model_result: { status: string; error: { code: string } | null } } }, allowed: string[]): void {
  const { model_result: modelResult } = result.sealed;
  if (modelResult.error === null) {
    expect(modelResult.status).toBe('succeeded');
  } else {
    expect(allowed).toContain(modelResult.error.code);
    expect(modelResult.status).toBe(ERROR_CATALOG[modelResult.error.code as keyof typeof ERROR_CATALOG].status);
  }
}

describe('dispatcher properties', () => {
  it('answers any argument text with a verifiable result (succeeded, INVALID_ARGUMENTS or NOT_FOUND)', async () => {
    const text = fc.oneof(
      fc.string(),
      fc.json(),
      fc.record({ order_id: fc.oneof(fc.string(), fc.constantFrom('ORDER-C7', 'ORDER-M9', 'ORDER-Z1')) }).map((value) => JSON.stringify(value)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('get_order', 'kb_search'), text, async (tool, argumentsText) => {
        const call = toolCall(tool, argumentsText);
        const turn = await host.dispatcher.dispatch([call], context);
        const [result] = turn.results;
        if (result === undefined) throw new Error('no result');
        expect(turn.verify(result.sealed, call)).toEqual({ ok: true });
        checkResult(result, ['INVALID_ARGUMENTS', 'NOT_FOUND']);
      }),
      { numRuns: 150 },
    );
  });

  it('answers any SDK-parsed argument value with a verifiable result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything({ withObjectString: true, withNullPrototype: true, withBigInt: true, withDate: true }), async (value) => {
        const call = toolCall('kb_search', value, { format: 'json_value' });
        const turn = await host.dispatcher.dispatch([call], context);
        const [result] = turn.results;
        if (result === undefined) throw new Error('no result');
        expect(turn.verify(result.sealed, call)).toEqual({ ok: true });
        checkResult(result, ['INVALID_ARGUMENTS']);
      }),
      { numRuns: 150 },
    );
  });

  it('answers any handler output with a verifiable result that contains nothing the contract refused', async () => {
    const marker = 'Zq9-untrusted-marker';
    const valid = {
      kind: 'data',
      data: { hits: [{ title: 't', snippet: 's', source: 'https://kb.example.com/a', revision: 'r1' }] },
      resource_revision: 'kb-index-r1',
      observed_at: '2026-07-18T00:00:00Z',
    };
    const output = fc.oneof(
      fc.anything(),
      fc.dictionary(fc.string(), fc.anything()).map((extra) => ({ ...valid, ...extra })),
      fc.record({ key: fc.constantFrom('token', 'status', 'error', 'access_token', 'call_id'), depth: fc.integer({ min: 0, max: 2 }) }).map(
        ({ key, depth }) => {
          const copy = structuredClone(valid) as { data: { hits: Record<string, unknown>[] } } & Record<string, unknown>;
          if (depth === 0) copy[key] = marker;
          else if (depth === 1) (copy.data as Record<string, unknown>)[key] = marker;
          else (copy.data.hits[0] as Record<string, unknown>)[key] = marker;
          return copy;
        },
      ),
    );
    await fc.assert(
      fc.asyncProperty(output, async (answer) => {
        host.impl.kb_search = () => answer as never;
        const call = toolCall('kb_search', { query: 'refund' });
        const turn = await host.dispatcher.dispatch([call], context);
        const [result] = turn.results;
        if (result === undefined) throw new Error('no result');
        expect(turn.verify(result.sealed, call)).toEqual({ ok: true });
        checkResult(result, ['TOOL_ERROR', 'OUTPUT_CONTRACT_VIOLATION']);
        expect(result.canonical_model_result).not.toContain(marker);
      }),
      { numRuns: 150 },
    );
    expect(await host.stores.auditLog.verifyChain()).toMatchObject({ ok: true });
  });
});
