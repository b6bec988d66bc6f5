// The sealed call, end to end (issue 8, item 1): an OpenAI Responses `function_call` for
// `get_order` parsed by the adapter, dispatched (registry, guard, input contract, trusted check,
// handler under a deadline, output contract, seal, audit append), and formatted back as a
// `function_call_output` by the adapter, which verifies every binding again before serializing.
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import type { PrincipalContext } from '@toolseal/contracts';
import type { Digester } from '@toolseal/digests';
import type { ToolCall } from '@toolseal/contracts';
import { createDispatcher, type DispatchedTurn, type DispatcherStores } from '@toolseal/dispatcher';
import { createToolRegistry, type ToolSpec } from '@toolseal/result';
import { GET_ORDER_ARGUMENTS_TEXT, PRINCIPAL, getOrderOutput, loadSharedToolSpecs } from './bench-tools.js';

/** The orders of tenant Cedar the trusted check knows (spec 002: ORDER-M9 is another tenant's). */
const ORDERS_BY_TENANT = new Map([['tenant-cedar', new Set(['ORDER-C7'])]]);

export function getOrderSpec(): ToolSpec {
  const spec = loadSharedToolSpecs().find((candidate) => candidate.contract.tool_name === 'get_order');
  if (spec === undefined) throw new Error('bench: fixtures/tools/get-order.json is missing');
  return spec;
}

/** One dispatched provider turn with the calls the adapter parsed for it. */
export interface HostTurn {
  readonly turn: DispatchedTurn;
  readonly calls: readonly ToolCall[];
}

export interface SealedCallHost {
  /** One sealed call: parse → dispatch → format. Resolves to the provider payload's output text. */
  call(): Promise<string>;
  /** The first two steps only (parse → dispatch), for the cost breakdown. */
  dispatchOnly(): Promise<HostTurn>;
  /** The last step only: formats an already dispatched turn again (verifying every binding). */
  formatOnly(dispatched: HostTurn): string;
  /** Calls made so far. */
  readonly count: number;
}

/** Builds a host with one dispatcher over `stores`; each `call()` is a fresh provider turn. */
export function createSealedCallHost(stores: DispatcherStores, digester: Digester, principal: PrincipalContext = PRINCIPAL): SealedCallHost {
  const registry = createToolRegistry([getOrderSpec()]);
  const dispatcher = createDispatcher({
    registry,
    stores,
    digester,
    tools: [
      {
        name: 'get_order',
        // Ownership against trusted facts, from the principal: arguments only name the order.
        check: ({ principal: caller, arguments: args }) =>
          ORDERS_BY_TENANT.get(caller.tenant_id)?.has(String(args.order_id)) === true ? { ok: true } : { ok: false, code: 'NOT_FOUND' },
        handler: ({ arguments: args }) => ({ kind: 'data', ...getOrderOutput(String(args.order_id)) }),
      },
    ],
  });
  const adapter = createOpenAIResponsesAdapter();
  let count = 0;

  const dispatchOnly = async (): Promise<HostTurn> => {
    count += 1;
    const response = {
      id: `resp_${count}`,
      output: [{ type: 'function_call', id: `fc_${count}`, call_id: `call_${count}`, name: 'get_order', arguments: GET_ORDER_ARGUMENTS_TEXT, status: 'completed' }],
    };
    const parsed = adapter.parseToolCalls(response);
    if (!parsed.ok) throw new Error(`bench: parse refused: ${parsed.error.code}`);
    return { turn: await dispatcher.dispatch(parsed.calls, { principal }), calls: parsed.calls };
  };

  const formatOnly = ({ turn, calls }: HostTurn): string => {
    const formatted = adapter.formatToolResults({
      calls,
      results: turn.sealed,
      verify: turn.verify,
      options: { continuation: 'previous_response_id' },
    });
    if (!formatted.ok) throw new Error(`bench: format refused: ${JSON.stringify(formatted.failures)}`);
    const item = formatted.payload.input[0];
    if (item === undefined || item.type !== 'function_call_output') throw new Error('bench: no function_call_output');
    return item.output;
  };

  return {
    get count() {
      return count;
    },
    dispatchOnly,
    formatOnly,
    call: async () => formatOnly(await dispatchOnly()),
  };
}
