/** How a value that is not what an option needs reads in a `TypeError` message. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
}

/**
 * The options object of a validator factory, checked at start-up: it must be an object, and every
 * key must be one `factory` reads. A misspelt key (`factsTimeout`, `clok`) would otherwise be
 * ignored in silence and leave the lookup unbounded or the system clock in charge. Throws a
 * `TypeError` naming the factory, or the unknown option and the known ones.
 */
export function checkOptionKeys(factory: string, options: unknown, known: readonly string[]): Record<string, unknown> {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${factory} needs an options object ({ ${known.join(', ')} }), not ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(`${factory}: unknown option ${JSON.stringify(key)} (known: ${known.join(', ')})`);
    }
  }
  return options as Record<string, unknown>;
}

/**
 * Checks at start-up that the host object given as option `name` has every method the validator
 * will call, and returns those methods bound to it, each read once: the function checked is the
 * function called, whatever the host does to its object later (swaps one, deletes one, a getter
 * answering differently per read). Without this, a missing `digester`, `facts: {}` or a rule set
 * without `check` was accepted, and then every call threw, or every proposal was held as
 * `FACTS_UNAVAILABLE` (the validator holds whatever a lookup or rule throws): a configuration bug
 * that looks like an outage. Throws a `TypeError` naming the option and the method
 * (`facts.lookup must be a function`).
 */
/** What `Object.prototype.toString` gives async and generator functions (bound ones too). */
const ASYNC_OR_GENERATOR: ReadonlySet<string> = new Set([
  '[object AsyncFunction]',
  '[object AsyncGeneratorFunction]',
  '[object GeneratorFunction]',
]);

export function checkMethods<T, K extends keyof T & string>(
  name: string,
  value: T,
  methods: readonly K[],
  what: string,
  synchronous = false,
): { readonly [P in K]: T[P] } {
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`${name} must be ${what}, not ${describeValue(value)}`);
  }
  const bound = {} as { [P in K]: T[P] };
  for (const method of methods) {
    const member: unknown = value[method];
    if (typeof member !== 'function') {
      throw new TypeError(`${name}.${method} must be a function (${name} must be ${what}), not ${describeValue(member)}`);
    }
    if (synchronous && ASYNC_OR_GENERATOR.has(Object.prototype.toString.call(member))) {
      // Its answer would be a Promise or an iterator, never the boolean or array asked for: every
      // proposal would be held or refused, a configuration bug looking like an outage.
      throw new TypeError(`${name}.${method} must be a synchronous function (${name} must be ${what}), not an async or generator function`);
    }
    bound[method] = (member as (...args: unknown[]) => unknown).bind(value) as T[K];
  }
  return Object.freeze(bound);
}
