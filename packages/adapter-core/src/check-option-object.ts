import { isPlainObject } from './is-plain-object.js';

/** How a value that is not a plain object reads in a `TypeError` message. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'a class instance';
  return `a ${typeof value}`;
}

/**
 * `value` as an options object named `name`: `{}` when it is `undefined`, else `value` itself when
 * it is a plain object (`isPlainObject`) whose own enumerable keys are all `knownKeys`. Throws a
 * `TypeError` naming the option otherwise: a string, an array, `null` or a misspelt key is a
 * misconfigured host, told so at start-up rather than silently read as "no option" (a string would
 * otherwise be iterated by characters, a misspelt limit left at its default).
 */
export function checkOptionObject(
  name: string,
  value: unknown,
  knownKeys: readonly string[],
): Readonly<Record<string, unknown>> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) {
    throw new TypeError(`${name} must be a plain object (or left out), not ${describeValue(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!knownKeys.includes(key)) {
      throw new TypeError(`${name} has no option ${JSON.stringify(key)} (known: ${knownKeys.join(', ')})`);
    }
  }
  return value;
}
