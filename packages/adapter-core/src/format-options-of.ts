import type { FormatToolResultsInput } from '@toolseal/contracts';

/** How a host argument of the wrong kind is named in a `TypeError`: `undefined`, `null`, `a string`. */
export function describeArgument(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const kind = typeof value;
  return kind === 'object' ? 'an object' : `a ${kind}`;
}

/**
 * The `options` of a `formatToolResults` input. Throws a `TypeError` naming the argument when the
 * input or its `options` is not an object: host misuse (options forgotten, or `null`), reported as
 * such rather than as "Cannot read properties of undefined" from deep inside a converter. Every
 * provider's options are an object, even when all their fields are optional.
 */
export function formatOptionsOf<TOptions>(input: FormatToolResultsInput<TOptions>): TOptions {
  if (typeof input !== 'object' || input === null) {
    throw new TypeError(`formatToolResults needs { calls, results, verify, options }: got ${describeArgument(input)}`);
  }
  const { options } = input;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`formatToolResults: options must be an object, got ${describeArgument(options)}`);
  }
  return options;
}
