import { createMemoryStores, ManualClock, MAX_SEALED_JSON_LENGTH } from '@toolseal/audit';
import { canonicalize, createDigester } from '@toolseal/digests';
import { createToolRegistry, RegistryError, sealResult, type ToolSpec } from '@toolseal/result';
import { describe, expect, it } from 'vitest';
import { CEDAR_DRAFTER, loadToolSpecs, only, START, toolCall } from './__fixtures__/test-host.js';
import { MAX_WRITE_OUTPUT_BYTES, SEALED_PACKAGE_OVERHEAD } from './compile-dispatcher-tools.js';
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
    ['a null audit log (review)', { stores: { ...stores, auditLog: null } as never }, /stores.auditLog must be an AuditLog/],
    ['a null idempotency store (review)', { stores: { ...stores, idempotencyStore: null } as never }, /stores.idempotencyStore must be an IdempotencyStore/],
    ['null stores', { stores: null as never }, /stores.auditLog must be an AuditLog/],
    ['a proposal gate on a read (review)', { tools: [{ name: 'get_order', handler, proposal: { validator: { validate: handler, recheckCurrent: handler } as never } }, goodTools[1] as DispatcherTool] }, /"get_order": proposal applies to write tools only/],
    ['a null proposal gate (review)', { tools: [{ name: 'get_order', handler, proposal: null as never }, goodTools[1] as DispatcherTool] }, /"get_order": proposal must be an object/],
    ['a misspelt proposal option', { tools: [{ name: 'get_order', handler, proposal: { validator: { validate: handler, recheckCurrent: handler } as never, field: ['x'] } as never }, goodTools[1] as DispatcherTool] }, /proposal has no option "field"/],
    ['no digester', { digester: {} as never }, /digester must be a Digester/],
    ['no registry', { registry: undefined as never }, /registry must be a ToolRegistry/],
  ])('refuses %s with a clear message', (_name, overrides, message) => {
    expect(startUpError(() => createDispatcher(options(overrides)))).toMatch(message);
  });

  it('the review: refuses a keyed digester with an audit log whose chain is not keyed, and accepts the matching pairs', () => {
    const keyed = createDigester({ key: new Uint8Array(32).fill(7) });
    const withChain = (chainKeyed: boolean | undefined) => ({
      ...stores,
      // A log that does not say (`keyed` absent, as a third-party store may be) reads undefined.
      auditLog: Object.create(stores.auditLog, { keyed: { value: chainKeyed } }),
    });
    expect(startUpError(() => createDispatcher(options({ digester: keyed, stores: withChain(false) })))).toMatch(
      /digester is keyed but stores.auditLog chains its entries unkeyed/,
    );
    expect(() => createDispatcher(options({ digester: keyed, stores: withChain(true) }))).not.toThrow();
    expect(() => createDispatcher(options({ digester: keyed, stores: withChain(undefined) }))).not.toThrow();
    expect(() => createDispatcher(options({ digester, stores: withChain(false) }))).not.toThrow();
  });

  it('the review: keeps an existing unkeyed chain when told to (acceptUnkeyedAuditChain), and checks the flag', () => {
    const keyed = createDigester({ key: new Uint8Array(32).fill(7) });
    const unkeyedChain = { ...stores, auditLog: Object.create(stores.auditLog, { keyed: { value: false } }) };
    expect(() => createDispatcher(options({ digester: keyed, stores: unkeyedChain, acceptUnkeyedAuditChain: true }))).not.toThrow();
    expect(startUpError(() => createDispatcher(options({ digester: keyed, stores: unkeyedChain, acceptUnkeyedAuditChain: false })))).toMatch(
      /set acceptUnkeyedAuditChain: true to keep it/,
    );
    expect(startUpError(() => createDispatcher(options({ acceptUnkeyedAuditChain: 'yes' as never })))).toMatch(/acceptUnkeyedAuditChain must be a boolean/);
  });

  it('the review: reads the stores option once, so the stores checked are the stores used', () => {
    let reads = 0;
    const given = { ...options() } as Record<string, unknown>;
    Object.defineProperty(given, 'stores', {
      enumerable: true,
      get: () => {
        reads += 1;
        return reads === 1 ? stores : { auditLog: null, idempotencyStore: null };
      },
    });
    expect(() => createDispatcher(given as unknown as DispatcherOptions)).not.toThrow();
    expect(reads).toBe(1);
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
      acceptUnkeyedAuditChain: false,
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

/** A write tool whose output is one text field, with `maxBytes` of output and room for any string in it. */
function noteSpec(maxBytes: number, revision = 'r-1', effect: 'read' | 'write' = 'write'): ToolSpec {
  return {
    contract: {
      tool_name: 'create_note',
      effect,
      input_revision: revision,
      output_revision: revision,
      effect_revision: revision,
      handler_revision: revision,
      producer_revision: revision,
      policy_revision: revision,
    },
    source_label: revision,
    input_schema: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string', maxLength: 64 } } },
    output_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['text'],
      properties: { text: { type: 'string', maxLength: 16_777_216 } },
    },
    resource_revision: { pattern: '^[\\s\\S]{1,128}$' },
    limits: { maxBytes, maxStringLength: Math.max(maxBytes, 256) },
  };
}

function noteOptions(spec: ToolSpec): DispatcherOptions {
  const noteClock = new ManualClock(START);
  const noteDigester = createDigester();
  return {
    registry: createToolRegistry([spec]),
    tools: [{ name: 'create_note', handler, ...(spec.contract.effect === 'write' ? { approval: 'none' as const } : {}) }],
    stores: createMemoryStores({ clock: noteClock, digester: noteDigester }),
    digester: noteDigester,
    clock: noteClock,
  };
}

describe("a write's output limit fits its idempotency record", () => {
  it('is the store limit less the sealed package overhead', () => {
    expect(MAX_WRITE_OUTPUT_BYTES).toBe(MAX_SEALED_JSON_LENGTH - SEALED_PACKAGE_OVERHEAD);
  });

  it('the review (t2): refuses at start-up a write whose maxBytes could outgrow the record, naming the tool and the limit', () => {
    for (const maxBytes of [MAX_WRITE_OUTPUT_BYTES + 1, 5_000_000, 16_777_216]) {
      const message = startUpError(() => createDispatcher(noteOptions(noteSpec(maxBytes))));
      expect(message).toMatch(/tool "create_note": limits.maxBytes \(\d+\) is too large for a write/);
      expect(message).toContain(`at most ${MAX_WRITE_OUTPUT_BYTES}`);
    }
    expect(() => createDispatcher(noteOptions(noteSpec(MAX_WRITE_OUTPUT_BYTES)))).not.toThrow();
    // A read stores nothing: the registry's ceiling stays its limit.
    expect(() => createDispatcher(noteOptions(noteSpec(16_777_216, 'r-1', 'read')))).not.toThrow();
  });

  it('bounds everything of a stored package but data: a worst-case package stays within SEALED_PACKAGE_OVERHEAD', () => {
    // Every member at its longest, escaped at six characters a unit where it may hold control
    // characters, two where only quotes and backslashes can be escaped (adapter ids).
    const control = '\u0001';
    const spec = noteSpec(1_024, control.repeat(64));
    const registry = createToolRegistry([spec], { control: { source_label: control.repeat(64), producer_revision: control.repeat(64) } });
    const quoted = (length: number) => '"'.repeat(length);
    // Provider and API family at the longest their patterns allow (nothing in them is escaped);
    // sealResult refuses a call field the protected_audit schema refuses.
    const call = {
      provider: 'p'.repeat(32),
      api_family: 'a'.repeat(64),
      response_id: quoted(256),
      call_id: quoted(256),
      adapter_revision: quoted(64),
      operation_id: quoted(128),
      idempotency_key: quoted(256),
    };
    const data = { text: 'x'.repeat(900) };
    const packages = [
      sealResult({
        registry,
        tool_name: 'create_note',
        principal: CEDAR_DRAFTER,
        call,
        arguments: { text: 'hi' },
        subject: {
          kind: 'data',
          output: {
            data,
            // The revision alphabet's one escaped character (`REVISION_ALPHABET` of @toolseal/result),
            // every other unit: a run of quotes would repeat the call's quoted ids (protected values).
            resource_revision: '"x'.repeat(64),
            observed_at: '2026-07-19T00:00:00.123456789Z',
            receipt: control.repeat(256),
            status_ref: control.repeat(256),
          },
        },
        execution: { delivery: 'receipt_reconciled' },
        now: () => new Date(START),
        digester,
      }),
      sealResult({
        registry,
        tool_name: 'create_note',
        principal: CEDAR_DRAFTER,
        call,
        arguments: { text: 'hi' },
        subject: { kind: 'error', code: 'TOOL_ERROR', receipt: control.repeat(256), status_ref: control.repeat(256) },
        execution: { delivery: 'fresh' },
        now: () => new Date(START),
        digester,
      }),
    ];
    const [success] = packages;
    expect(success?.sealed.model_result.status).toBe('succeeded');
    for (const output of packages) {
      const stored = `{"model_result":${output.canonical_model_result},"protected_audit":${canonicalize(output.sealed.protected_audit)}}`;
      const dataLength = output.sealed.model_result.data === null ? 0 : canonicalize(data).length;
      expect(stored.length - dataLength).toBeLessThanOrEqual(SEALED_PACKAGE_OVERHEAD);
      // The bound is not loose by orders of magnitude: the itemized worst case is about 29 Ki.
      expect(stored.length - dataLength).toBeGreaterThan(8_000);
    }
  });

  it('a write whose output is exactly the largest allowed, under the largest envelope, is recorded and replays', async () => {
    const spec = noteSpec(MAX_WRITE_OUTPUT_BYTES);
    const text = 'x'.repeat(MAX_WRITE_OUTPUT_BYTES - canonicalize({ text: '' }).length);
    expect(canonicalize({ text }).length).toBe(MAX_WRITE_OUTPUT_BYTES);
    const base = noteOptions(spec);
    let runs = 0;
    const dispatcher = createDispatcher({
      ...base,
      tools: [
        {
          name: 'create_note',
          approval: 'none',
          handler: () => {
            runs += 1;
            return {
              kind: 'data',
              data: { text },
              resource_revision: '"x'.repeat(64),
              observed_at: '2026-07-19T00:00:00.123456789Z',
              receipt: '\u0001'.repeat(256),
              status_ref: '\u0001'.repeat(256),
            };
          },
        },
      ],
    });
    const context = { principal: CEDAR_DRAFTER };
    const first = only(await dispatcher.dispatch([toolCall('create_note', { text: 'hi' })], context));
    expect(first.gate).toBe('sealed');
    const key = first.sealed.protected_audit.downstream.idempotency_key ?? '';
    expect((await base.stores.idempotencyStore.get(key))?.state).toBe('completed');
    const again = only(await dispatcher.dispatch([toolCall('create_note', { text: 'hi' })], context));
    expect(again.sealed.model_result.execution.delivery).toBe('local_replay');
    expect(again.sealed.model_result.data).toEqual({ text });
    expect(runs).toBe(1);
  });
});
