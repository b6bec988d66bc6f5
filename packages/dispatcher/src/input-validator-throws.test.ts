// Arguments every digest covers, and an input validator that throws instead of answering.
// `argumentLimits.maxDepth` is bounded at start-up by the deepest arguments a request digest
// covers (`MAX_ARGUMENTS_DEPTH`): deeper ones passed the guard and then failed the whole dispatch
// when the call was sealed. A validator that throws (the registry refuses the contracts it can
// tell would, so only a broken registry gets there) holds the call: nothing ran and no verdict on
// the arguments was reached (FACTS_UNAVAILABLE, not_started), never a tool error whose outcome is
// unknown.
import { createMemoryStores, ManualClock } from '@toolseal/audit';
import { createDigester, MAX_ARGUMENTS_DEPTH } from '@toolseal/digests';
import { createToolRegistry, type RegisteredTool, type ToolRegistry, type ToolSpec } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { CEDAR_DRAFTER, only, START, TEST_KEY, loadToolSpecs, toolCall } from './__fixtures__/test-host.js';
import { createDispatcher } from './create-dispatcher.js';
import type { DispatcherTool } from './dispatcher-tool.js';
import { DispatcherConfigError } from './dispatcher-config-error.js';

/** `get_order` renamed `walk_tree`, taking arguments of one required member `name` that `$defs` describe. */
function recursiveSpec(name: string, member: object, $defs: object): ToolSpec {
  const spec = structuredClone(loadToolSpecs().getOrder);
  return {
    ...spec,
    contract: { ...spec.contract, tool_name: 'walk_tree' },
    input_schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      required: [name],
      properties: { [name]: member },
      $defs,
    },
    echo: {},
  } as ToolSpec;
}

/** A tree of nested arrays: a recursive, closed input contract. */
function treeSpec(): ToolSpec {
  return recursiveSpec('tree', { $ref: '#/$defs/node' }, { node: { type: 'array', maxItems: 2, items: { $ref: '#/$defs/node' } } });
}

/** Arguments `{ tree }` whose depth (the arguments object included) is `depth`. */
function nested(depth: number): string {
  return `{"tree":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

function hostWith(registry: ToolRegistry, maxDepth: number) {
  const clock = new ManualClock(START);
  const digester = createDigester({ key: TEST_KEY });
  const stores = createMemoryStores({ clock, digester });
  const handled: number[] = [];
  const tool: DispatcherTool = {
    name: 'walk_tree',
    argumentLimits: { maxBytes: 1_048_576, maxDepth, maxTotalNodes: 10_000 },
    handler: () => {
      handled.push(1);
      return { kind: 'error', code: 'NOT_FOUND' };
    },
  };
  const dispatcher = createDispatcher({ registry, stores, digester, clock, tools: [tool] });
  return { dispatcher, stores, handled };
}

describe('argument depth', () => {
  it(`admits argumentLimits.maxDepth up to ${MAX_ARGUMENTS_DEPTH}: such arguments are validated, digested, sealed and audited`, async () => {
    const { dispatcher, stores, handled } = hostWith(createToolRegistry([treeSpec()]), MAX_ARGUMENTS_DEPTH);
    const deepest = only(await dispatcher.dispatch([toolCall('walk_tree', nested(MAX_ARGUMENTS_DEPTH))], { principal: CEDAR_DRAFTER }));
    expect(deepest.gate).toBe('handler');
    expect(deepest.sealed.model_result.error?.code).toBe('NOT_FOUND');
    expect(handled).toHaveLength(1);
    expect((await stores.auditLog.query({ kind: 'sealed_call', call_id: deepest.call_id }, { limit: 1 })).entries).toHaveLength(1);

    const deeper = only(await dispatcher.dispatch([toolCall('walk_tree', nested(MAX_ARGUMENTS_DEPTH + 1))], { principal: CEDAR_DRAFTER }));
    expect(deeper.gate).toBe('guard');
    expect(deeper.sealed.model_result.error?.code).toBe('INVALID_ARGUMENTS');
  });

  it('the review: refuses a deeper argumentLimits.maxDepth at start-up (such arguments failed the whole dispatch when sealed)', () => {
    expect(() => hostWith(createToolRegistry([treeSpec()]), MAX_ARGUMENTS_DEPTH + 1)).toThrow(DispatcherConfigError);
    expect(() => hostWith(createToolRegistry([treeSpec()]), MAX_ARGUMENTS_DEPTH + 1)).toThrow(/argumentLimits\.maxDepth must be at most 999/);
  });
});

describe('an input validator that throws', () => {
  it('holds the call (FACTS_UNAVAILABLE, not_started), audited, and the handler never runs', async () => {
    const registry = createToolRegistry([treeSpec()]);
    const broken: ToolRegistry = {
      ...registry,
      toolNames: registry.toolNames,
      get: (name) => {
        const tool = registry.get(name);
        if (tool === undefined) return undefined;
        const validateInput = Object.assign(
          (value: unknown): boolean => {
            throw new RangeError(`Maximum call stack size exceeded (${JSON.stringify(value).length})`);
          },
          { errors: null },
        );
        return { ...tool, validateInput } as RegisteredTool;
      },
    };
    const { dispatcher, stores, handled } = hostWith(broken, 32);
    const held = only(await dispatcher.dispatch([toolCall('walk_tree', nested(3))], { principal: CEDAR_DRAFTER }));
    expect(held.gate).toBe('input_schema');
    expect(held.sealed.model_result.error?.code).toBe('FACTS_UNAVAILABLE');
    expect(held.sealed.model_result.execution.outcome).toBe('not_started');
    expect(handled).toHaveLength(0);
    expect((await stores.auditLog.query({ kind: 'sealed_call', call_id: held.call_id }, { limit: 1 })).entries).toHaveLength(1);
  });
});

describe('a contract whose combinators multiply the validation work', () => {
  const OPS = ['and', 'or', 'nand', 'nor'];
  /** A filter grammar whose every oneOf branch recurses through `args` before `op` tells them apart. */
  function filterSpec(): ToolSpec {
    const args = { type: 'array', maxItems: 8, items: { $ref: '#/$defs/expr' } };
    return recursiveSpec('filter', { $ref: '#/$defs/expr' }, {
      expr: {
        oneOf: [
          ...OPS.map((op) => ({ type: 'object', additionalProperties: false, required: ['args', 'op'], properties: { args, op: { const: op } } })),
          { type: 'object', additionalProperties: false, required: ['eq', 'field'], properties: { eq: { type: 'string', maxLength: 64 }, field: { type: 'string', maxLength: 64 } } },
        ],
      },
    });
  }
  const filter = (levels: number): string => {
    let expr = '{"eq":"b","field":"a"}';
    for (let level = 0; level < levels; level++) expr = `{"args":[${expr}],"op":"and"}`;
    return `{"filter":${expr}}`;
  };

  it('the review: holds a 363-byte filter on the validation work budget (it held the event loop for minutes), and the handler never runs', async () => {
    const { dispatcher, handled } = hostWith(createToolRegistry([filterSpec()]), 32);
    const shallow = only(await dispatcher.dispatch([toolCall('walk_tree', filter(2))], { principal: CEDAR_DRAFTER }));
    expect(shallow.gate).toBe('handler');
    expect(handled).toHaveLength(1);

    const text = filter(15);
    expect(text.length).toBe(363);
    const held = only(await dispatcher.dispatch([toolCall('walk_tree', text)], { principal: CEDAR_DRAFTER }));
    expect(held.gate).toBe('input_schema');
    expect(held.sealed.model_result.error?.code).toBe('FACTS_UNAVAILABLE');
    expect(held.sealed.model_result.execution.outcome).toBe('not_started');
    expect(handled).toHaveLength(1);
  });
});
