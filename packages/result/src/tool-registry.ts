import type { ToolContract } from '@toolseal/contracts';
import {
  compilePattern,
  compileSchema,
  createDeclaredFields,
  createSensitiveKeyScanner,
  deepFreeze,
  inspectInputSchema,
  isWellFormedText,
  resolveJsonLimits,
  type CompiledPattern,
  type DeclaredFields,
  type JsonLimits,
  type SensitiveKeyScanner,
} from '@toolseal/guard';
import { CONTRACT_KEYS, CONTRACT_REVISIONS } from './contract-keys.js';
import { createInputFieldTemplates, type InputFieldTemplates } from './input-field-templates.js';
import { inspectOutputSchema } from './inspect-schema.js';
import { pointerSegments } from './json-pointer.js';
import { RegistryError } from './registry-error.js';
import type { ControlProvenance, OutputLimits, ToolSpec } from './tool-spec.js';

/** A compiled JSON Schema validator (the pinned Ajv's `ValidateFunction`). */
export type CompiledValidator = ReturnType<typeof compileSchema>;

/**
 * Defaults for `ToolSpec.limits`: 256 KiB of `data`, depth 16, 1,000 items per array, 256 keys per
 * object, 65,536 code units per string, 20,000 values. Tools tighten them.
 */
export const DEFAULT_OUTPUT_LIMITS: Readonly<OutputLimits> = Object.freeze({
  maxBytes: 262_144,
  maxDepth: 16,
  maxArrayItems: 1_000,
  maxObjectKeys: 256,
  maxStringLength: 65_536,
  maxTotalNodes: 20_000,
});

/** Hard ceilings a spec may not raise its limits above. */
const LIMIT_CEILINGS: Readonly<OutputLimits> = Object.freeze({
  maxBytes: 16_777_216,
  maxDepth: 64,
  maxArrayItems: 100_000,
  maxObjectKeys: 4_096,
  maxStringLength: 16_777_216,
  maxTotalNodes: 1_000_000,
});

/**
 * Extra bytes for the fixed handler envelope in the guard limits of the raw output: the guard's walk
 * bounds the JSON size of the whole output by `maxBytes` plus this, a bound against floods only.
 * The exact limit is on the RFC 8785 encoding of `data` (same length as its JSON text). It covers
 * the largest valid envelope, so it never refuses what the exact checks would accept: member names
 * (105 bytes), `resource_revision` (128 units), `receipt` and `status_ref` (256 units each) at six
 * bytes per escaped unit plus quotes, `observed_at` (32 bytes): 3,983 bytes.
 */
const ENVELOPE_BYTES = 4_096;

/**
 * Extra bytes for everything of a sealed package but `data` in the guard limits verification uses:
 * at most about 130 KB at six bytes per escaped UTF-16 unit, most of it the 64 redactions of up to
 * 256 path units each (~104 KB); the error's reasons, provider ids, revisions and downstream ids
 * the rest.
 */
const PACKAGE_MEMBER_BYTES = 262_144;

/**
 * The reserved tool name under which a call to an unregistered tool is sealed (as UNKNOWN_TOOL).
 * No registered tool may use it. Its contract's revisions are all `"unregistered"` except
 * `producer_revision`, which is the control plane's.
 */
export const UNREGISTERED_TOOL_NAME = 'toolseal-unregistered';

/** Provenance of dispatcher-made errors when the host does not set its own. */
export const DEFAULT_CONTROL_PROVENANCE: Readonly<ControlProvenance> = Object.freeze({
  source_label: 'toolseal',
  producer_revision: 'toolseal-control-v1',
});

/** One tool as the registry compiled it at start-up. Immutable. */
export interface RegisteredTool {
  /** Tool name, effect and the six revisions (frozen copy of the spec's). */
  readonly contract: Readonly<ToolContract>;
  /** `provenance.source_label` of this tool's data. */
  readonly sourceLabel: string;
  /** The output limits in force (defaults filled in). */
  readonly limits: Readonly<OutputLimits>;
  /** The guard limits applied to the whole raw handler output (data limits plus the envelope). */
  readonly handlerOutputLimits: Readonly<JsonLimits>;
  /**
   * The guard limits on `data` alone: the tool's depth, item, key, string and value limits exactly.
   * `verifyResult` applies them to a presented package's `data`; sealing applies them too where
   * `checksDataLimits`, and otherwise counts the values of `data` against `limits.maxTotalNodes`
   * (the walk of the whole output allows the envelope's values beside them). (Bytes are measured
   * exactly on the canonical text of `data`, against `limits.maxBytes`.)
   */
  readonly dataLimits: Readonly<JsonLimits>;
  /**
   * True when the tool's key or string limit is below what the walk of the whole handler output
   * allows the envelope (8 keys, 256 units): sealing then checks `data` against `dataLimits` too.
   */
  readonly checksDataLimits: boolean;
  /** Validates arguments against `input_schema` (compiled once). */
  readonly validateInput: CompiledValidator;
  /**
   * The argument fields `input_schema` declares: every `ErrorReason.field` of this tool's errors
   * must be one of them (checked when sealing dispatcher errors' sources and at verification).
   */
  readonly inputFields: InputFieldTemplates;
  /** Validates `data` against the exact `output_schema` (compiled once). */
  readonly validateOutput: CompiledValidator;
  /**
   * The fields `output_schema` declares (the guard's `createDeclaredFields`, built once here): every
   * `OutputViolation.path` under `/data` is cut to its longest prefix they declare before it leaves
   * this package, so a key the handler made up (a subject id, a credential-shaped name) is never
   * reported. Paths are cut at 16 segments, as `ErrorReason.field` is.
   */
  readonly outputFields: DeclaredFields;
  /**
   * Output pointer → input pointer pairs the output must echo, with each pointer's segments split
   * once here (`outputSegments`, `inputSegments`) rather than on every seal and verification.
   */
  readonly echo: readonly {
    readonly output: string;
    readonly input: string;
    readonly outputSegments: readonly string[];
    readonly inputSegments: readonly string[];
  }[];
  /**
   * Compiled `resource_revision` pattern, as `^(?:pattern)$`: it matches the whole value only. The
   * guard's linear-time `compilePattern`, so a handler's value cannot make it backtrack.
   */
  readonly resourceRevision: CompiledPattern;
  /** Pointer templates of link fields, and the allowed schemes and hosts. */
  readonly links: {
    readonly pointers: readonly string[];
    readonly schemes: ReadonlySet<string>;
    readonly hosts: ReadonlySet<string>;
  };
  /** Pointer templates of media-type fields, and the allowed types. */
  readonly media: { readonly pointers: readonly string[]; readonly types: ReadonlySet<string> };
  /** Per-tool sensitive keys added to the guard's list. */
  readonly sensitiveExtra: readonly string[];
  /** Per-tool names lifted from the guard's list (`sensitive_keys.allow`). */
  readonly sensitiveAllow: readonly string[];
  /** The guard's sensitive/control-key scanner with this tool's extras, built once. */
  readonly scanSensitiveKeys: SensitiveKeyScanner;
  /** Whether incomplete and truncated results are allowed. */
  readonly allowIncomplete: boolean;
}

/** The registered tools of one host, built once at start-up. */
export interface ToolRegistry {
  /** The compiled tool, or `undefined` for a name that is not registered (own entries only). */
  get(toolName: string): RegisteredTool | undefined;
  /** Registered tool names, in registration order. */
  readonly toolNames: readonly string[];
  /** Provenance of dispatcher-made errors. */
  readonly control: Readonly<ControlProvenance>;
  /** The reserved contract under which calls to unregistered tools are sealed. */
  readonly unregisteredContract: Readonly<ToolContract>;
  /** Guard limits for a whole sealed package of any registered tool (used by verification). */
  readonly packageLimits: Readonly<JsonLimits>;
}

/** Registry options: an object (or left out), with no key but these, else a `RegistryError`. */
export interface ToolRegistryOptions {
  /** Provenance of dispatcher-made errors; defaults to `DEFAULT_CONTROL_PROVENANCE`. */
  control?: ControlProvenance;
}

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const CONTRACT_KEY_SET = new Set<string>(CONTRACT_KEYS);
const SPEC_KEYS = new Set([
  'contract',
  'source_label',
  'input_schema',
  'output_schema',
  'echo',
  'limits',
  'resource_revision',
  'links',
  'media_types',
  'sensitive_keys',
  'allow_incomplete',
]);
const OPTION_KEYS = new Set(['control']);
const LIMIT_NAMES = Object.keys(DEFAULT_OUTPUT_LIMITS) as (keyof OutputLimits)[];
/** A member name written after a dot in a path (`input_schema.properties`); any other is quoted. */
const PLAIN_MEMBER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const SCHEME = /^[a-z][a-z0-9+.-]{0,31}$/;
const HOST = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:[0-9]{1,5})?$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const TEMPLATE = /^(?:\/(?:[A-Za-z0-9_]{1,64}|\*)){1,16}$/;
const ECHO_POINTER = /^(?:\/[A-Za-z0-9_]{1,64}){1,16}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * 1 to `max` UTF-16 units without a lone surrogate: revisions, labels and provenance are copied into
 * every sealed package and its digests, which cannot hold text without a UTF-8 form.
 */
function isBoundedText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= max && isWellFormedText(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The registry's options, checked before anything else: `null`, a string or an array would
 * otherwise fail on the first member read with a raw `TypeError` naming neither the options nor
 * the registry, and a misspelt key (`contol`) would be ignored in silence.
 */
function checkOptions(options: unknown): ToolRegistryOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new RegistryError(null, 'options must be an object ({ control? }) or left out');
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new RegistryError(null, `options has unknown field ${JSON.stringify(key)}`);
  }
  return options as ToolRegistryOptions;
}

/** `path` extended by one member or index, as a message shows it: `links.hosts[0]`, `echo["/a"]`. */
function memberPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return PLAIN_MEMBER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Whether `value` (an object, not an array) is a plain object: its prototype is `null` or this
 * realm's `Object.prototype`, or it is another realm's plain object: its prototype's own prototype
 * is `null` (that realm's `Object.prototype`) and its built-in tag is `[object Object]`. So a
 * plain-JSON spec made in another realm (a `vm` context, which `structuredClone` accepted) is data
 * too, while a class instance (its prototype's prototype is another object) and a `Date`, `Map`,
 * `RegExp`, boxed primitive... of any realm (a prototype chain two deep) are not. Arrays are judged
 * by `Array.isArray`, which works across realms.
 */
function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === null || prototype === Object.prototype) return true;
  return Object.getPrototypeOf(prototype) === null && Object.prototype.toString.call(value) === '[object Object]';
}

/** What a value that JSON cannot hold is, for a message; `null` for JSON data (and `undefined`). */
function describeNonData(value: unknown): string | null {
  switch (typeof value) {
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    case 'bigint':
      return 'a BigInt';
    case 'number':
      return Number.isFinite(value) ? null : String(value);
    case 'object': {
      if (value === null || Array.isArray(value) || isPlainObject(value)) return null;
      return 'a class instance or built-in object (a schema library\'s schema, a Date, a Map...)';
    }
    default:
      return null;
  }
}

/**
 * A private copy of one spec member made of JSON data only: plain objects, arrays, strings, finite
 * numbers, booleans and `null` (a member left `undefined` stays so: every check reads it as left
 * out). A spec is configuration a host could have read from a file; a handler kept beside it, a
 * schema library's object given as a schema, a `Date` or a cycle has no place in it, and cloning
 * one failed with a bare `DOMException` (`() => 1 could not be cloned.`) naming neither the tool
 * nor the field. The `RegistryError` names the tool, when known, and the path of the first such
 * value. Keys are copied with `defineProperty`, so an own `__proto__` key stays a member.
 */
function copySpecData(name: string | null, path: string, value: unknown, ancestors: Set<object> = new Set()): unknown {
  const problem = describeNonData(value);
  if (problem !== null) throw new RegistryError(name, `${path} must be JSON data, not ${problem}`);
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.has(value)) throw new RegistryError(name, `${path} must be JSON data, not a cycle`);
  ancestors.add(value);
  let copy: unknown;
  if (Array.isArray(value)) {
    copy = Array.from(value as unknown[], (item, index) => copySpecData(name, memberPath(path, index), item, ancestors));
  } else {
    const record: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const member = copySpecData(name, memberPath(path, key), (value as Record<string, unknown>)[key], ancestors);
      Object.defineProperty(record, key, { value: member, enumerable: true, writable: true, configurable: true });
    }
    copy = record;
  }
  ancestors.delete(value);
  return copy;
}

function checkControl(control: unknown): ControlProvenance {
  if (
    !isRecord(control) ||
    !isBoundedText(control.source_label, 64) ||
    !isBoundedText(control.producer_revision, 64)
  ) {
    throw new RegistryError(null, 'control needs source_label and producer_revision, 1 to 64 characters each without lone surrogates');
  }
  return Object.freeze({ source_label: control.source_label, producer_revision: control.producer_revision });
}

function checkContract(name: string | null, contract: unknown): ToolContract {
  if (!isRecord(contract)) throw new RegistryError(name, 'contract must be an object');
  for (const key of Object.keys(contract)) {
    if (!CONTRACT_KEY_SET.has(key)) throw new RegistryError(name, `contract has unknown field ${JSON.stringify(key)}`);
  }
  if (typeof contract.tool_name !== 'string' || !TOOL_NAME.test(contract.tool_name)) {
    throw new RegistryError(name, 'contract.tool_name must match ^[A-Za-z][A-Za-z0-9_-]{0,63}$');
  }
  if (contract.effect !== 'read' && contract.effect !== 'write') {
    throw new RegistryError(name, 'contract.effect must be "read" or "write"');
  }
  for (const revision of CONTRACT_REVISIONS) {
    if (!isBoundedText(contract[revision], 64)) {
      throw new RegistryError(name, `contract.${revision} is missing or not 1 to 64 characters without lone surrogates`);
    }
  }
  return contract as unknown as ToolContract;
}

function resolveLimits(name: string, limits: unknown): OutputLimits {
  if (limits === undefined) return { ...DEFAULT_OUTPUT_LIMITS };
  if (!isRecord(limits)) throw new RegistryError(name, 'limits must be an object');
  const resolved: OutputLimits = { ...DEFAULT_OUTPUT_LIMITS };
  for (const key of Object.keys(limits)) {
    if (!(LIMIT_NAMES as string[]).includes(key)) throw new RegistryError(name, `limits has unknown field ${JSON.stringify(key)}`);
  }
  for (const limit of LIMIT_NAMES) {
    const value = limits[limit];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > LIMIT_CEILINGS[limit]) {
      throw new RegistryError(name, `limits.${limit} must be an integer from 1 to ${LIMIT_CEILINGS[limit]}`);
    }
    resolved[limit] = value;
  }
  return resolved;
}

function compileOrThrow(name: string, which: string, schema: object): CompiledValidator {
  try {
    return compileSchema(schema);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new RegistryError(name, `${which} is rejected by the pinned Ajv (strict mode): ${detail}`);
  }
}

function compileResourceRevision(name: string, value: unknown): CompiledPattern {
  if (!isRecord(value) || typeof value.pattern !== 'string') {
    throw new RegistryError(name, 'resource_revision must be { pattern: string }');
  }
  const { pattern } = value;
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) {
    throw new RegistryError(name, 'resource_revision.pattern must be anchored with ^ and $');
  }
  try {
    // Alone first: only a pattern that is a whole regular expression by itself stays one inside the
    // group below (`^a)|(b$` would otherwise close it and alternate outside the anchors).
    new RegExp(pattern, 'u');
  } catch {
    throw new RegistryError(name, 'resource_revision.pattern is not a valid regular expression');
  }
  // Matched against the whole value by construction: the leading `^` and trailing `$` bind only the
  // first and last alternative of `^order-[0-9]+|r[0-9]+$`, which let `order-1 <free text>` through
  // into provenance, the one handler string outside `data` the model sees. Matched in linear time:
  // a backtracking pattern (`^(a+)+$`) would let a handler's value stall the event loop.
  try {
    return compilePattern(`^(?:${pattern})$`);
  } catch (error) {
    throw new RegistryError(name, `resource_revision.pattern is not supported: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * A private, frozen copy of a spec (the host cannot change it after start-up), member by member:
 * the contract first, so its tool name names every later error, then the member names, so a stray
 * `handler` is refused as the unknown field it is before its value is looked at, then every other
 * member as JSON data (`copySpecData`). Each member is read once.
 */
function copySpec(spec: unknown): { contract: ToolContract; own: Readonly<Record<string, unknown>> } {
  if (!isRecord(spec) || describeNonData(spec) !== null) {
    throw new RegistryError(null, 'every tool spec must be an object: a plain object of JSON data');
  }
  const contract = deepFreeze({ ...checkContract(null, copySpecData(null, 'contract', spec.contract)) });
  const name = contract.tool_name;
  const keys = Object.keys(spec);
  for (const key of keys) {
    if (!SPEC_KEYS.has(key)) throw new RegistryError(name, `spec has unknown field ${JSON.stringify(key)}`);
  }
  const own: Record<string, unknown> = {};
  for (const key of keys) {
    if (key !== 'contract') own[key] = copySpecData(name, key, spec[key]);
  }
  return { contract, own: deepFreeze(own) };
}

function compileTool(spec: unknown): RegisteredTool {
  const { contract, own } = copySpec(spec);
  const name = contract.tool_name;
  if (name === UNREGISTERED_TOOL_NAME) throw new RegistryError(name, 'this tool name is reserved');
  if (!isBoundedText(own.source_label, 64)) throw new RegistryError(name, 'source_label must be 1 to 64 characters without lone surrogates');
  if (!isRecord(own.input_schema)) throw new RegistryError(name, 'input_schema must be a JSON Schema object');
  if (!isRecord(own.output_schema)) throw new RegistryError(name, 'output_schema must be a JSON Schema object');

  const input = inspectInputSchema(own.input_schema);
  if (input.problems.length > 0) throw new RegistryError(name, `input_schema is not exact: ${input.problems.join('; ')}`);
  const output = inspectOutputSchema(own.output_schema);
  if (output.problems.length > 0) throw new RegistryError(name, `output_schema is not exact: ${output.problems.join('; ')}`);

  const { extra: sensitiveExtra, allow: sensitiveAllow } = checkSensitiveKeys(name, own.sensitive_keys);
  for (const key of sensitiveAllow) {
    // A lifted name is part of the tool's contract: only a property its output schema declares.
    if (!output.propertyNames.has(key)) {
      throw new RegistryError(name, `sensitive_keys.allow: ${JSON.stringify(key)} is not a property output_schema declares`);
    }
  }
  let scanner: SensitiveKeyScanner;
  try {
    scanner = createSensitiveKeyScanner({ extraKeys: sensitiveExtra, allowKeys: sensitiveAllow });
  } catch (error) {
    throw new RegistryError(name, `sensitive_keys: ${error instanceof Error ? error.message : String(error)}`);
  }
  const probe: Record<string, null> = {};
  for (const property of output.propertyNames) probe[property] = null;
  const hits = scanner(probe);
  if (hits.length > 0) {
    const names = hits.map((hit) => JSON.stringify(hit.key)).join(', ');
    throw new RegistryError(name, `output_schema declares sensitive or control keys: ${names}`);
  }

  const validateInput = compileOrThrow(name, 'input_schema', own.input_schema);
  let inputFields: InputFieldTemplates;
  try {
    inputFields = createInputFieldTemplates(own.input_schema);
  } catch (error) {
    throw new RegistryError(name, `input_schema ${error instanceof Error ? error.message : String(error)}`);
  }
  // Before the output validator: a schema over the guard's field limit is refused without the
  // seconds the pinned Ajv takes to compile ten thousand fields.
  let outputFields: DeclaredFields;
  try {
    outputFields = createDeclaredFields(own.output_schema);
  } catch (error) {
    throw new RegistryError(name, `output_schema ${error instanceof Error ? error.message : String(error)}`);
  }
  const validateOutput = compileOrThrow(name, 'output_schema', own.output_schema);
  const echo = checkEcho(name, own.echo, output.scalarPaths, input.scalarPaths);
  const limits = Object.freeze(resolveLimits(name, own.limits));
  const resourceRevision = compileResourceRevision(name, own.resource_revision);
  const links = checkLinks(name, own.links, output.uriPointers);
  const media = checkMedia(name, own.media_types, output.mediaPointers);
  if (own.allow_incomplete !== undefined && typeof own.allow_incomplete !== 'boolean') {
    throw new RegistryError(name, 'allow_incomplete must be a boolean');
  }
  // Guard limits are made by the guard's resolveJsonLimits (frozen): handed back to the guard on
  // every sealed call, they are taken as they are, with no per-call check.
  const handlerOutputLimits: Readonly<JsonLimits> = resolveJsonLimits({
    maxBytes: limits.maxBytes + ENVELOPE_BYTES,
    maxDepth: limits.maxDepth + 1,
    maxArrayItems: limits.maxArrayItems,
    maxObjectKeys: Math.max(limits.maxObjectKeys, 8),
    maxStringLength: Math.max(limits.maxStringLength, 256),
    maxTotalNodes: limits.maxTotalNodes + 8,
  });
  return Object.freeze({
    contract,
    sourceLabel: own.source_label,
    limits,
    handlerOutputLimits,
    dataLimits: resolveJsonLimits({
      ...handlerOutputLimits,
      maxDepth: limits.maxDepth,
      maxObjectKeys: limits.maxObjectKeys,
      maxStringLength: limits.maxStringLength,
      maxTotalNodes: limits.maxTotalNodes,
    }),
    checksDataLimits:
      limits.maxObjectKeys < handlerOutputLimits.maxObjectKeys || limits.maxStringLength < handlerOutputLimits.maxStringLength,
    validateInput,
    inputFields,
    validateOutput,
    outputFields,
    echo,
    resourceRevision,
    links,
    media,
    sensitiveExtra,
    sensitiveAllow,
    scanSensitiveKeys: scanner,
    allowIncomplete: own.allow_incomplete === true,
  });
}

const NO_KEYS: readonly string[] = Object.freeze([]);

function checkSensitiveKeys(name: string, value: unknown): { extra: readonly string[]; allow: readonly string[] } {
  if (value === undefined) return { extra: NO_KEYS, allow: NO_KEYS };
  if (
    !isRecord(value) ||
    Object.keys(value).some((key) => key !== 'extra' && key !== 'allow') ||
    (value.extra !== undefined && !isStringList(value.extra)) ||
    (value.allow !== undefined && !isStringList(value.allow))
  ) {
    throw new RegistryError(name, 'sensitive_keys must be { extra?: string[], allow?: string[] }');
  }
  const lists = { extra: value.extra ?? [], allow: value.allow ?? [] };
  for (const [list, keys] of Object.entries(lists)) {
    if (keys.some((key) => key.length === 0 || key.length > 64)) {
      throw new RegistryError(name, `sensitive_keys.${list} entries must be 1 to 64 characters`);
    }
  }
  return { extra: Object.freeze([...lists.extra]), allow: Object.freeze([...lists.allow]) };
}

function checkEcho(
  name: string,
  value: unknown,
  outputPaths: ReadonlySet<string>,
  inputPaths: ReadonlySet<string>,
): RegisteredTool['echo'] {
  if (value === undefined) return Object.freeze([]);
  if (!isRecord(value)) throw new RegistryError(name, 'echo must map output pointers to input pointers');
  const pairs: RegisteredTool['echo'][number][] = [];
  for (const [output, input] of Object.entries(value)) {
    if (!ECHO_POINTER.test(output) || !outputPaths.has(output)) {
      throw new RegistryError(name, `echo output pointer ${JSON.stringify(output)} is not a declared output field outside arrays`);
    }
    if (typeof input !== 'string' || !ECHO_POINTER.test(input) || !inputPaths.has(input)) {
      throw new RegistryError(name, `echo input pointer ${JSON.stringify(input)} is not a declared input field outside arrays`);
    }
    pairs.push(
      Object.freeze({
        output,
        input,
        outputSegments: Object.freeze(pointerSegments(output)),
        inputSegments: Object.freeze(pointerSegments(input)),
      }),
    );
  }
  return Object.freeze(pairs);
}

function checkLinks(name: string, value: unknown, uriPointers: readonly string[]): RegisteredTool['links'] {
  if (value === undefined) {
    if (uriPointers.length > 0) {
      throw new RegistryError(name, `output fields ${uriPointers.join(', ')} hold links: declare links.schemes and links.hosts`);
    }
    return Object.freeze({ pointers: Object.freeze([]), schemes: new Set<string>(), hosts: new Set<string>() });
  }
  if (!isRecord(value) || !isStringList(value.schemes) || !isStringList(value.hosts)) {
    throw new RegistryError(name, 'links must be { pointers?: string[]; schemes: string[]; hosts: string[] }');
  }
  if (value.schemes.length === 0 || !value.schemes.every((scheme) => SCHEME.test(scheme))) {
    throw new RegistryError(name, 'links.schemes must be a non-empty list of lowercase schemes without ":"');
  }
  if (value.hosts.length === 0 || !value.hosts.every((host) => HOST.test(host))) {
    throw new RegistryError(name, 'links.hosts must be a non-empty list of lowercase host names (optionally :port)');
  }
  const extra = value.pointers ?? [];
  if (!isStringList(extra) || !extra.every((pointer) => TEMPLATE.test(pointer))) {
    throw new RegistryError(name, 'links.pointers must be pointer templates like /hits/*/source');
  }
  return Object.freeze({
    pointers: Object.freeze([...new Set([...uriPointers, ...extra])]),
    schemes: new Set(value.schemes),
    hosts: new Set(value.hosts),
  });
}

function checkMedia(name: string, value: unknown, mediaPointers: readonly string[]): RegisteredTool['media'] {
  if (value === undefined) {
    if (mediaPointers.length > 0) {
      throw new RegistryError(name, `output fields ${mediaPointers.join(', ')} hold media types: declare media_types`);
    }
    return Object.freeze({ pointers: Object.freeze([]), types: new Set<string>() });
  }
  if (!isStringList(value) || value.length === 0 || !value.every((type) => MEDIA_TYPE.test(type))) {
    throw new RegistryError(name, 'media_types must be a non-empty list of lowercase type/subtype values');
  }
  return Object.freeze({ pointers: Object.freeze([...mediaPointers]), types: new Set(value) });
}

/**
 * Builds the registry once at start-up: validates every spec, compiles the input and output
 * validators with the pinned Ajv, and proves every output schema exact and every input schema
 * closed. Throws `RegistryError` on options that are not an object or hold an unknown key, a spec
 * that is not plain JSON data (a function such as a handler, a class instance such as a schema
 * library's object, a cycle: the tool and the path are named) or holds an unknown field, a
 * duplicate name, a missing revision, a schema strict Ajv
 * rejects, an output schema that is not exact at every level, an input schema that leaves a value
 * open (an untyped or `true` subschema, an object without `additionalProperties: false`, an array
 * without `items`: see `ToolSpec.input_schema`), a sensitive key in an output schema, an output
 * schema that declares more than 10,000 fields (the guard's `MAX_DECLARED_FIELDS`), or a bad pattern,
 * link or media rule.
 */
export function createToolRegistry(specs: readonly ToolSpec[], options: ToolRegistryOptions = {}): ToolRegistry {
  if (!Array.isArray(specs)) throw new RegistryError(null, 'specs must be an array');
  const control = checkControl(checkOptions(options).control ?? DEFAULT_CONTROL_PROVENANCE);
  const tools = new Map<string, RegisteredTool>();
  for (const spec of specs) {
    const tool = compileTool(spec);
    const name = tool.contract.tool_name;
    if (tools.has(name)) throw new RegistryError(name, 'registered twice');
    tools.set(name, tool);
  }
  const unregisteredContract: ToolContract = Object.freeze({
    tool_name: UNREGISTERED_TOOL_NAME,
    effect: 'read',
    input_revision: 'unregistered',
    output_revision: 'unregistered',
    effect_revision: 'unregistered',
    handler_revision: 'unregistered',
    producer_revision: control.producer_revision,
    policy_revision: 'unregistered',
  });
  const all = [...tools.values()];
  const largest = (limit: keyof OutputLimits, floor: number): number =>
    Math.max(floor, ...all.map((tool) => tool.limits[limit]));
  // A sealed package nests `data` two levels down (package → model_result → data) and adds a
  // bounded protected audit; an error package reaches depth 5 (…/error/reasons/n). The guard bounds
  // the package's JSON size by `maxBytes`, a flood bound only: the members around `data` of a valid
  // package stay below PACKAGE_MEMBER_BYTES even with every string at its longest and escaped.
  const packageLimits: Readonly<JsonLimits> = resolveJsonLimits({
    maxBytes: largest('maxBytes', 0) + PACKAGE_MEMBER_BYTES,
    maxDepth: largest('maxDepth', 4) + 2,
    maxArrayItems: largest('maxArrayItems', 64),
    maxObjectKeys: largest('maxObjectKeys', 16),
    maxStringLength: largest('maxStringLength', 512),
    maxTotalNodes: largest('maxTotalNodes', 0) + 1_024,
  });
  const toolNames = Object.freeze([...tools.keys()]);
  return Object.freeze({
    get: (toolName: string) => (typeof toolName === 'string' ? tools.get(toolName) : undefined),
    toolNames,
    control,
    unregisteredContract,
    packageLimits,
  });
}
