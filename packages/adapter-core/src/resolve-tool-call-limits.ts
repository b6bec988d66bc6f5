import { DEFAULT_JSON_LIMITS, type JsonLimits } from '@toolseal/guard';
import { checkOptionObject } from './check-option-object.js';

/** Bounds an adapter applies to one provider response before any call leaves it. */
export interface ToolCallLimitOptions {
  /** Most tool calls accepted in one response. Default 64. */
  maxCalls?: number;
  /** Largest arguments of one call, in UTF-8 bytes (text) or serialized bytes (values). Default 1 MiB. */
  maxArgumentBytes?: number;
  /**
   * Limits for arguments the provider's SDK already parsed into a value (Anthropic, Gemini):
   * depth, items, keys, string length, nodes. Defaults to the guard's `DEFAULT_JSON_LIMITS`. A
   * plain object of those five keys only: `maxBytes` is always `maxArgumentBytes`, and setting it
   * here throws.
   */
  argumentLimits?: Partial<Omit<JsonLimits, 'maxBytes'>>;
}

/** The resolved bounds. */
export interface ToolCallLimits {
  readonly maxCalls: number;
  readonly maxArgumentBytes: number;
  readonly argumentLimits: Readonly<JsonLimits>;
}

/** Default most tool calls in one response. */
export const DEFAULT_MAX_TOOL_CALLS = 64;
/** Default largest arguments of one call: 1 MiB. */
export const DEFAULT_MAX_ARGUMENT_BYTES = 1_048_576;

/** The options `resolveToolCallLimits` knows. */
const LIMIT_OPTIONS: readonly string[] = ['maxCalls', 'maxArgumentBytes', 'argumentLimits'];
/** The guard limits a host may set in `argumentLimits` (`maxBytes` is `maxArgumentBytes`). */
const ARGUMENT_LIMITS = ['maxDepth', 'maxArrayItems', 'maxObjectKeys', 'maxStringLength', 'maxTotalNodes'] as const;

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a positive safe integer`);
  }
  return value;
}

/**
 * Fills unset bounds with the defaults. Throws a `TypeError`, naming the option, for a misconfigured
 * host (not an outcome): `options` or `argumentLimits` that is not a plain object (a string, an
 * array, `null`), a key neither knows (`argumentLimits.maxBytes` included: the byte bound of parsed
 * arguments is `maxArgumentBytes`, and a host setting it there would believe in a bound that does
 * not apply), or a bound that is not a positive safe integer.
 */
export function resolveToolCallLimits(options: ToolCallLimitOptions = {}): ToolCallLimits {
  const checked = checkOptionObject('tool call limit options', options, LIMIT_OPTIONS);
  const maxCalls = positiveInteger('maxCalls', checked['maxCalls'], DEFAULT_MAX_TOOL_CALLS);
  const maxArgumentBytes = positiveInteger('maxArgumentBytes', checked['maxArgumentBytes'], DEFAULT_MAX_ARGUMENT_BYTES);
  const overrides: unknown = checked['argumentLimits'];
  if (typeof overrides === 'object' && overrides !== null && Object.hasOwn(overrides, 'maxBytes')) {
    throw new TypeError('argumentLimits.maxBytes is not an option: the byte bound of parsed arguments is maxArgumentBytes');
  }
  const checkedOverrides = checkOptionObject('argumentLimits', overrides, ARGUMENT_LIMITS);
  const argumentLimits: JsonLimits = { ...DEFAULT_JSON_LIMITS, maxBytes: maxArgumentBytes };
  for (const name of ARGUMENT_LIMITS) {
    argumentLimits[name] = positiveInteger(`argumentLimits.${name}`, checkedOverrides[name], argumentLimits[name]);
  }
  return Object.freeze({ maxCalls, maxArgumentBytes, argumentLimits: Object.freeze(argumentLimits) });
}
