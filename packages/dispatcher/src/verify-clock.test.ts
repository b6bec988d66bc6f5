// The verifier a turn hands to the adapter reads the dispatcher's own clock: a package whose
// observed_at lies beyond the allowed skew in the future of that clock is refused (`provenance`),
// as sealing refuses such a handler output. Here the clock is set back after the seal, as on a host
// whose clock jumped backwards or a package presented to another host's skewed clock.
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import { createMemoryStores, ManualClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { createToolRegistry, MAX_CLOCK_SKEW_MS } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { START } from './__fixtures__/test-host.js';
import { createDispatcher } from './create-dispatcher.js';

const registry = createToolRegistry([
  {
    contract: {
      tool_name: 'get_note',
      effect: 'read',
      input_revision: 'i1',
      output_revision: 'o1',
      effect_revision: 'e1',
      handler_revision: 'h1',
      producer_revision: 'p1',
      policy_revision: 'x1',
    },
    source_label: 'notes',
    input_schema: { type: 'object', additionalProperties: false, properties: {} },
    output_schema: { type: 'object', additionalProperties: false, properties: { note: { type: 'string', maxLength: 20 } } },
    resource_revision: { pattern: '^r[0-9]$' },
  },
]);

describe('turn.verify and the dispatcher clock', () => {
  it('refuses a package observed later than its clock allows, and accepts it while the clock agrees', async () => {
    const clock = new ManualClock(START);
    const digester = createDigester();
    const dispatcher = createDispatcher({
      registry,
      digester,
      clock,
      stores: createMemoryStores({ clock, digester }),
      tools: [
        {
          name: 'get_note',
          handler: () => ({ kind: 'data', data: { note: 'n' }, resource_revision: 'r1', observed_at: new Date(clock.now()).toISOString() }),
        },
      ],
    });
    const adapter = createOpenAIResponsesAdapter();
    const parsed = adapter.parseToolCalls({ id: 'resp', output: [{ type: 'function_call', call_id: 'c1', name: 'get_note', arguments: '{}' }] } as never);
    if (!parsed.ok) throw new Error('parse refused');
    const [call] = parsed.calls;
    if (call === undefined) throw new Error('no call');
    const turn = await dispatcher.dispatch(parsed.calls, { principal: { tenant_id: 't1', subject_id: 's1', roles: [] } });
    const [sealed] = turn.sealed;
    if (sealed === undefined) throw new Error('no result');
    expect(sealed.model_result.status).toBe('succeeded');

    expect(turn.verify(sealed, call)).toEqual({ ok: true });
    clock.set(START - MAX_CLOCK_SKEW_MS);
    expect(turn.verify(sealed, call)).toEqual({ ok: true });
    clock.set(START - MAX_CLOCK_SKEW_MS - 1000);
    expect(turn.verify(sealed, call)).toEqual({ ok: false, reasons: ['provenance'] });
    const formatted = adapter.formatToolResults({ calls: parsed.calls, results: turn.sealed, verify: turn.verify, options: { continuation: 'previous_response_id' } });
    expect(formatted.ok).toBe(false);
  });
});
