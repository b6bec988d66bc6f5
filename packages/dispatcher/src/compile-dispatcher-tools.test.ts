import { createMemoryStores, ManualClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { createToolRegistry, RegistryError, type ToolSpec } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { loadToolSpecs, START } from './__fixtures__/test-host.js';
import { createDispatcher } from './create-dispatcher.js';
import type { DispatcherOptions } from './dispatch-types.js';
import { DispatcherConfigError } from './dispatcher-config-error.js';
import type { DispatcherTool } from './dispatcher-tool.js';

const specs = loadToolSpecs();
const registry = createToolRegistry([specs.getOrder, specs.createRefundDraft]);
const digester = createDigester();
const clock = new ManualClock(START);
const stores = createMemoryStores({ clock, digester });
const handler = () => ({ kind: 'error' as const, code: 'NOT_FOUND' as const });
const queryStatus = () => ({ kind: 'unknown' as const });
const goodTools: DispatcherTool[] = [
  { name: 'get_order', handler },
  { name: 'create_refund_draft', handler, queryStatus },
];

function options(overrides: Partial<DispatcherOptions> = {}): DispatcherOptions {
  return { registry, tools: goodTools, stores, digester, clock, ...overrides };
}

function startUpError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(DispatcherConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('start-up succeeded');
}

describe('start-up checks', () => {
  it('accepts a complete configuration', () => {
    expect(() => createDispatcher(options())).not.toThrow();
  });

  it.each<[string, Partial<DispatcherOptions>, RegExp]>([
    ['a registered tool without code', { tools: [goodTools[0] as DispatcherTool] }, /"create_refund_draft": is registered but has no handler/],
    ['a tool the registry does not know', { tools: [...goodTools, { name: 'send_email', handler }] }, /"send_email": is not in the registry/],
    ['a tool given twice', { tools: [...goodTools, { name: 'get_order', handler }] }, /"get_order": is given twice/],
    ['a missing handler', { tools: [{ name: 'get_order' } as DispatcherTool, goodTools[1] as DispatcherTool] }, /handler must be a function/],
    ['a status query on a read', { tools: [{ name: 'get_order', handler, queryStatus }, goodTools[1] as DispatcherTool] }, /queryStatus applies to write tools only/],
    ['an approval policy on a read', { tools: [{ name: 'get_order', handler, approval: 'none' }, goodTools[1] as DispatcherTool] }, /write tools only/],
    ['a bad approval policy', { tools: [goodTools[0] as DispatcherTool, { name: 'create_refund_draft', handler, queryStatus, approval: 'maybe' as never }] }, /approval must be/],
    ['a zero deadline', { tools: [{ name: 'get_order', handler, deadlineMs: 0 }, goodTools[1] as DispatcherTool] }, /deadlineMs must be an integer/],
    ['a negative argument limit', { tools: [{ name: 'get_order', handler, argumentLimits: { maxBytes: -1 } }, goodTools[1] as DispatcherTool] }, /argumentLimits/],
    ['an unknown tool option', { tools: [{ name: 'get_order', handler, handlr: handler } as DispatcherTool, goodTools[1] as DispatcherTool] }, /unknown option "handlr"/],
    ['proposal fields that are not names', { tools: [{ name: 'get_order', handler, proposal: { validator: { validate: handler, recheckCurrent: handler } as never, fields: ['a/b'] } }, goodTools[1] as DispatcherTool] }, /proposal.fields/],
    ['a bad rate limit', { rateLimit: { capacity: 0, refillPerSecond: 1 } }, /rateLimit.capacity/],
    ['a bad lease', { leaseMs: 1.5 }, /leaseMs/],
    ['a zero store timeout', { storeTimeoutMs: 0 }, /storeTimeoutMs must be an integer from 1 to 3600000 ms/],
    ['a fractional store timeout', { storeTimeoutMs: 2.5 }, /storeTimeoutMs must be an integer/],
    ['a store timeout given as text', { storeTimeoutMs: '10000' as never }, /storeTimeoutMs must be an integer/],
    ['a store timeout over an hour', { storeTimeoutMs: 3_600_001 }, /storeTimeoutMs must be an integer/],
    ['an owner the stores would refuse (NUL)', { owner: 'host-\u0000' }, /owner must be 1 to 128 characters without control characters/],
    ['a clock without epoch time', { clock: { now: () => Number.NaN } }, /clock/],
    ['no stores', { stores: {} as never }, /stores.auditLog/],
    ['no digester', { digester: {} as never }, /digester must be a Digester/],
    ['no registry', { registry: undefined as never }, /registry must be a ToolRegistry/],
  ])('refuses %s with a clear message', (_name, overrides, message) => {
    expect(startUpError(() => createDispatcher(options(overrides)))).toMatch(message);
  });

  it.each([
    ['a misspelt option (storeTimeoutMS)', 'storeTimeoutMS'],
    ['an option of another layer', 'approvals'],
    ['an inherited name', 'toString'],
    ['the prototype key', '__proto__'],
  ])('refuses an unknown top-level option: %s, naming it', (_name, key) => {
    const given = { ...options() } as Record<string, unknown>;
    Object.defineProperty(given, key, { value: 5, enumerable: true, configurable: true, writable: true });
    let thrown: unknown;
    try {
      createDispatcher(given as unknown as DispatcherOptions);
    } catch (error) {
      thrown = error;
    }
    expect(DispatcherConfigError.isInstance(thrown)).toBe(true);
    expect((thrown as DispatcherConfigError).toolName).toBeNull();
    expect((thrown as Error).message).toBe(`createDispatcher: unknown option ${JSON.stringify(key)}`);
  });

  it('accepts every documented option at once', () => {
    // `Required`: a new option in DispatcherOptions fails to compile here until it is listed.
    const every: Required<DispatcherOptions> = {
      registry,
      tools: goodTools,
      stores,
      digester,
      clock,
      operationId: () => 'op-1',
      owner: 'host-1',
      rateLimit: { capacity: 10, refillPerSecond: 1 },
      leaseMs: 20_000,
      defaultDeadlineMs: 10_000,
      leaseMarginMs: 1_000,
      storeTimeoutMs: 5_000,
    };
    expect(() => createDispatcher(every)).not.toThrow();
  });

  it('fails at start-up, through the registry, for a missing revision or a schema strict Ajv refuses', () => {
    const noRevision = structuredClone(specs.getOrder);
    const contract: Partial<ToolSpec['contract']> = noRevision.contract;
    delete contract.policy_revision;
    expect(() => createToolRegistry([noRevision])).toThrow(RegistryError);
    const loose = structuredClone(specs.getOrder) as ToolSpec & { input_schema: Record<string, unknown> };
    loose.input_schema['minimum'] = 'not a number';
    expect(() => createToolRegistry([loose])).toThrow(RegistryError);
    expect(() => createToolRegistry([specs.getOrder, specs.getOrder])).toThrow(/registered twice/);
  });
});
