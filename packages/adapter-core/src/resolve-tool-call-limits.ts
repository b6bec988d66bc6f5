import { DEFAULT_JSON_LIMITS, type JsonLimits } from '@toolseal/guard';

/** Bounds an adapter applies to one provider response before any call leaves it. */
export interface ToolCallLimitOptions {
  /** Most tool calls accepted in one response. Default 64. */
  maxCalls?: number;
  /** Largest arguments of one call, in UTF-8 bytes (text) or serialized bytes (values). Default 1 MiB. */
  maxArgumentBytes?: number;
  /**
   * Limits for arguments the provider's SDK already parsed into a value (Anthropic, Gemini):
   * depth, items, keys, string length, nodes. Defaults to the guard's `DEFAULT_JSON_LIMITS`;
   * `maxBytes` is always `maxArgumentBytes`.
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

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a positive safe integer`);
  }
  return value;
}

/**
 * Fills unset bounds with the defaults. Throws a `TypeError` for a bound that is not a positive
 * safe integer: a misconfigured host, not an outcome.
 */
export function resolveToolCallLimits(options: ToolCallLimitOptions = {}): ToolCallLimits {
  const maxCalls = positiveInteger('maxCalls', options.maxCalls, DEFAULT_MAX_TOOL_CALLS);
  const maxArgumentBytes = positiveInteger(
    'maxArgumentBytes',
    options.maxArgumentBytes,
    DEFAULT_MAX_ARGUMENT_BYTES,
  );
  const argumentLimits: JsonLimits = { ...DEFAULT_JSON_LIMITS, maxBytes: maxArgumentBytes };
  const overrides = options.argumentLimits ?? {};
  for (const name of [
    'maxDepth',
    'maxArrayItems',
    'maxObjectKeys',
    'maxStringLength',
    'maxTotalNodes',
  ] as const) {
    argumentLimits[name] = positiveInteger(`argumentLimits.${name}`, overrides[name], argumentLimits[name]);
  }
  return Object.freeze({ maxCalls, maxArgumentBytes, argumentLimits: Object.freeze(argumentLimits) });
}
