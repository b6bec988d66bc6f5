import { MAX_SEALED_JSON_LENGTH } from '@toolseal/audit';
import { MAX_ARGUMENTS_DEPTH } from '@toolseal/digests';
import { resolveJsonLimits, type JsonLimits } from '@toolseal/guard';
import type { ProposalValidator } from '@toolseal/proposal';
import type { RegisteredTool, ToolRegistry } from '@toolseal/result';
import { DispatcherConfigError } from './dispatcher-config-error.js';
import type { DispatcherTool, RateLimit, StatusQuery, ToolHandler, TrustedCheck } from './dispatcher-tool.js';
import { checkRateLimit } from './rate-limiter.js';

/** One tool as the dispatcher runs it: registry entry, code and policy, checked and frozen. */
export interface CompiledTool {
  readonly name: string;
  readonly registered: RegisteredTool;
  readonly write: boolean;
  readonly handler: ToolHandler;
  readonly check: TrustedCheck | null;
  readonly proposal: { readonly validator: ProposalValidator<unknown, unknown>; readonly fields: readonly string[] | null } | null;
  readonly approvalRequired: boolean;
  /** `DispatcherTool.earlierAttemptAfterRefusal` (writes only; `false` for reads). */
  readonly earlierAttemptAfterRefusal: boolean;
  readonly queryStatus: StatusQuery | null;
  readonly deadlineMs: number;
  readonly argumentLimits: Readonly<JsonLimits>;
  readonly rateLimit: RateLimit | null;
}

const FIELD_NAME = /^[A-Za-z0-9_]{1,64}$/;
/** Largest deadline a tool may set: one hour (a longer call belongs in a job queue). */
export const MAX_DEADLINE_MS = 3_600_000;

export function checkDuration(toolName: string | null, where: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_DEADLINE_MS) {
    throw new DispatcherConfigError(toolName, `${where} must be an integer from 1 to ${MAX_DEADLINE_MS} ms`);
  }
  return value;
}

/**
 * An upper bound, in UTF-16 code units, on everything of a write's stored sealed package (the
 * RFC 8785 text `{"model_result":…,"protected_audit":…}` the dispatcher hands `complete` and
 * `reconcile`) except the text of `data`. Every other member is bounded before it is sealed, and
 * is counted here at six units per unit (a `\u00XX` escape) plus quotes, so the bound holds for any
 * content:
 *
 * - `model_result` of a data result: fixed names and values (~300), `observed_at` (at most 30),
 *   `resource_revision` (128 units: 770), `source_label` and `producer_revision` (64 each: 386
 *   each), about 1.9 Ki in all; of an error (no data; handler refusals are stored): the catalog's
 *   message (~150), control provenance (64 + 64 units: 772) and at most 16 reasons of a field
 *   pointer (at most 16 segments of 65 plain characters) and a rule name, about 19 Ki;
 * - `protected_audit`: fixed names (~400), principal reference and three digests (4 × 66), the
 *   provider context (five adapter ids of at most 256 units without control characters, quotes
 *   and backslashes escaped: 5 × 514), the contract (tool name 66, effect, six revisions of 64
 *   units: 6 × 386), the downstream ids (operation id 128 plain units: 258; key 256 units without
 *   control characters: 514; receipt and status reference 256 units: 2 × 1,538) and the one
 *   redaction an output-contract violation adds (~60): about 9.7 Ki.
 *
 * About 29 Ki at most; 64 Ki leaves room to spare. `data` itself is at most `limits.maxBytes` UTF-8
 * bytes of RFC 8785 text, and a text never has more UTF-16 units than UTF-8 bytes.
 */
export const SEALED_PACKAGE_OVERHEAD = 65_536;

/**
 * The largest `limits.maxBytes` a write tool may have: its sealed result must fit the idempotency
 * record (`MAX_SEALED_JSON_LENGTH` of `@toolseal/audit`, which every store enforces at `complete`
 * and `reconcile`), or a write that ran could never be recorded.
 */
export const MAX_WRITE_OUTPUT_BYTES = MAX_SEALED_JSON_LENGTH - SEALED_PACKAGE_OVERHEAD;

function isFunction(value: unknown): value is (...parameters: never[]) => unknown {
  return typeof value === 'function';
}

function compileTool(
  spec: DispatcherTool,
  registered: RegisteredTool,
  defaults: { deadlineMs: number; rateLimit: RateLimit | null },
): CompiledTool {
  const name = registered.contract.tool_name;
  const known = new Set([
    'name',
    'handler',
    'check',
    'proposal',
    'approval',
    'earlierAttemptAfterRefusal',
    'queryStatus',
    'deadlineMs',
    'argumentLimits',
    'rateLimit',
  ]);
  for (const key of Object.keys(spec)) {
    if (!known.has(key)) throw new DispatcherConfigError(name, `unknown option ${JSON.stringify(key)}`);
  }
  if (!isFunction(spec.handler)) throw new DispatcherConfigError(name, 'handler must be a function');
  if (spec.check !== undefined && !isFunction(spec.check)) throw new DispatcherConfigError(name, 'check must be a function');
  const write = registered.contract.effect === 'write';
  if (write && registered.limits.maxBytes > MAX_WRITE_OUTPUT_BYTES) {
    throw new DispatcherConfigError(
      name,
      `limits.maxBytes (${registered.limits.maxBytes}) is too large for a write: its sealed result must fit an idempotency record ` +
        `(${MAX_SEALED_JSON_LENGTH} characters, MAX_SEALED_JSON_LENGTH of @toolseal/audit), so at most ${MAX_WRITE_OUTPUT_BYTES}`,
    );
  }

  let proposal: CompiledTool['proposal'] = null;
  // Read once: the gate checked is the gate used.
  const gate: unknown = spec.proposal;
  if (gate !== undefined) {
    if (typeof gate !== 'object' || gate === null || Array.isArray(gate)) {
      throw new DispatcherConfigError(name, 'proposal must be an object { validator, fields? }, or left out');
    }
    for (const key of Object.keys(gate)) {
      if (key !== 'validator' && key !== 'fields') throw new DispatcherConfigError(name, `proposal has no option ${JSON.stringify(key)} (it takes validator and fields)`);
    }
    const { validator, fields } = gate as NonNullable<DispatcherTool['proposal']>;
    if (typeof validator !== 'object' || validator === null || !isFunction(validator.validate) || !isFunction(validator.recheckCurrent)) {
      throw new DispatcherConfigError(name, 'proposal.validator must be a @toolseal/proposal validator');
    }
    if (fields !== undefined) {
      if (!Array.isArray(fields) || fields.length === 0 || !fields.every((field) => typeof field === 'string' && FIELD_NAME.test(field))) {
        throw new DispatcherConfigError(name, 'proposal.fields must be a non-empty list of top-level argument names');
      }
      if (new Set(fields).size !== fields.length) throw new DispatcherConfigError(name, 'proposal.fields lists a name twice');
    }
    proposal = Object.freeze({ validator, fields: fields === undefined ? null : Object.freeze([...fields]) });
  }

  // A read runs its handler right after the decision, with no recheck before an effect: a
  // proposal gate there would look like review without being one.
  if (!write && proposal !== null) {
    throw new DispatcherConfigError(name, 'proposal applies to write tools only (this tool reads)');
  }
  if (spec.approval !== undefined && spec.approval !== 'required' && spec.approval !== 'none') {
    throw new DispatcherConfigError(name, "approval must be 'required' or 'none'");
  }
  if (spec.earlierAttemptAfterRefusal !== undefined && typeof spec.earlierAttemptAfterRefusal !== 'boolean') {
    throw new DispatcherConfigError(name, 'earlierAttemptAfterRefusal must be a boolean');
  }
  if (!write && spec.earlierAttemptAfterRefusal !== undefined) {
    throw new DispatcherConfigError(name, 'earlierAttemptAfterRefusal applies to write tools only (this tool reads)');
  }
  if (!write && spec.approval !== undefined) {
    throw new DispatcherConfigError(name, 'approval applies to write tools only (this tool reads)');
  }
  if (spec.queryStatus !== undefined && !isFunction(spec.queryStatus)) {
    throw new DispatcherConfigError(name, 'queryStatus must be a function');
  }
  if (!write && spec.queryStatus !== undefined) {
    throw new DispatcherConfigError(name, 'queryStatus applies to write tools only (this tool reads)');
  }

  let argumentLimits: Readonly<JsonLimits>;
  try {
    argumentLimits = resolveJsonLimits(spec.argumentLimits); // frozen, and returned at once when the guard is given it back
  } catch (error) {
    throw new DispatcherConfigError(name, `argumentLimits: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Every call's arguments are digested (request, intent, approval preview): deeper ones would
  // pass the guard and then have no digest, failing the call after the gates instead of at them.
  if (argumentLimits.maxDepth > MAX_ARGUMENTS_DEPTH) {
    throw new DispatcherConfigError(name, `argumentLimits.maxDepth must be at most ${MAX_ARGUMENTS_DEPTH} (the deepest arguments a request digest covers)`);
  }

  let rateLimit = defaults.rateLimit;
  if (spec.rateLimit === false) rateLimit = null;
  else if (spec.rateLimit !== undefined) rateLimit = checkRateLimit(name, 'rateLimit', spec.rateLimit);

  return Object.freeze({
    name,
    registered,
    write,
    handler: spec.handler,
    check: spec.check ?? null,
    proposal,
    approvalRequired: write && spec.approval !== 'none',
    earlierAttemptAfterRefusal: write && spec.earlierAttemptAfterRefusal === true,
    queryStatus: spec.queryStatus ?? null,
    deadlineMs: checkDuration(name, 'deadlineMs', spec.deadlineMs, defaults.deadlineMs),
    argumentLimits,
    rateLimit,
  });
}

/**
 * Pairs every registry entry with exactly one `DispatcherTool` and checks the pair, at start-up:
 * a tool the registry does not know, a registered tool without code, a name given twice, a missing
 * handler, an approval policy or status query on a read, bad limits or deadlines, a write whose
 * output limit (`limits.maxBytes`) could not fit its idempotency record all throw a
 * `DispatcherConfigError` naming the tool.
 */
export function compileDispatcherTools(
  registry: ToolRegistry,
  tools: readonly DispatcherTool[],
  defaults: { deadlineMs: number; rateLimit: RateLimit | null },
): ReadonlyMap<string, CompiledTool> {
  if (!Array.isArray(tools)) throw new DispatcherConfigError(null, 'tools must be an array');
  const compiled = new Map<string, CompiledTool>();
  for (const spec of tools) {
    if (typeof spec !== 'object' || spec === null || typeof spec.name !== 'string') {
      throw new DispatcherConfigError(null, 'every tool needs a name');
    }
    const registered = registry.get(spec.name);
    if (registered === undefined) {
      throw new DispatcherConfigError(spec.name, 'is not in the registry (register its contracts first)');
    }
    if (compiled.has(spec.name)) throw new DispatcherConfigError(spec.name, 'is given twice');
    compiled.set(spec.name, compileTool(spec, registered, defaults));
  }
  for (const name of registry.toolNames) {
    if (!compiled.has(name)) throw new DispatcherConfigError(name, 'is registered but has no handler');
  }
  return compiled;
}
