import type { PrincipalContext } from '@toolseal/contracts';
import { copyUntrustedValue, deepFreeze, isForbiddenKey, resolveJsonLimits, type JsonLimits } from '@toolseal/guard';

/** The fields a principal's checker reads itself; `copyPrincipal` copies every other one. */
const CHECKED_FIELDS: ReadonlySet<string> = new Set(['tenant_id', 'subject_id', 'roles']);
/**
 * Bounds of one extra field's value (claims a host keeps beside the identity, not documents).
 * Resolved once, here: the guard takes back limits it resolved without checking them again.
 */
const EXTRA_FIELD_LIMITS: Readonly<JsonLimits> = resolveJsonLimits({ maxBytes: 65_536, maxDepth: 16, maxTotalNodes: 4_096 });

/**
 * Longest `tenant_id` and `subject_id` of a principal, in characters (code points, as the
 * `PrincipalContext` schema's `maxLength` counts them): see `fitsPrincipalIdLength`.
 */
export const MAX_PRINCIPAL_ID_LENGTH = 128;

/**
 * Whether `id` is 1 to `MAX_PRINCIPAL_ID_LENGTH` characters long, counted as the
 * `PrincipalContext` schema counts them (JSON Schema's `maxLength`: code points, so a surrogate
 * pair is one character, as Ajv counts it): `'🌲'.repeat(100)` (200 UTF-16 units) fits, as the
 * schema accepts it. A string of at most 128 units always fits and one of more than 256 never does,
 * so only the lengths between are counted. Lone surrogates count one each here; the callers refuse
 * them separately. The validator's `checkActor` and the dispatcher use this one check.
 */
export function fitsPrincipalIdLength(id: string): boolean {
  const units = id.length;
  if (units === 0) return false;
  if (units <= MAX_PRINCIPAL_ID_LENGTH) return true;
  if (units > 2 * MAX_PRINCIPAL_ID_LENGTH) return false;
  let characters = 0;
  for (let index = 0; index < units; index += 1) {
    const unit = id.charCodeAt(index);
    // A low surrogate right after a high one ends the character the high one began.
    if (unit >= 0xdc00 && unit <= 0xdfff && index > 0) {
      const previous = id.charCodeAt(index - 1);
      if (previous >= 0xd800 && previous <= 0xdbff) continue;
    }
    characters += 1;
  }
  return characters <= MAX_PRINCIPAL_ID_LENGTH;
}
/** Most roles a principal may carry (the `PrincipalContext` schema's bound). */
export const MAX_PRINCIPAL_ROLES = 32;

/**
 * The frozen copy of a host's principal that every later step uses: `checked` (the `tenant_id`,
 * `subject_id` and `roles` the caller read once from `principal` and checked) plus every other own
 * enumerable string-keyed field of `principal`, each value a private deep-frozen copy of JSON data
 * (`copyUntrustedValue` of `@toolseal/guard`, at most 64 KiB, depth 16, 4,096 values), read once
 * from its descriptor. A host's principal may carry more than `PrincipalContext` (a `suspended` flag
 * its facts source or a trusted check reads, say), and dropping such a field would turn "deny if
 * suspended" into "allow"; sharing the host's own object would let a handler change what a later
 * check of the turn, or the host's next turn, reads. Throws a `TypeError` naming the problem (after
 * `name`, such as `'validate: actor'`) for a principal that is not a plain object (prototype
 * `Object.prototype` or `null`: a class's getters live on its prototype, where an own-field copy
 * would silently drop them), and for a field that is an accessor, cannot be read (a Proxy trap that
 * throws), is named as no claim may be (`FORBIDDEN_KEYS` of `@toolseal/guard`: `__proto__`,
 * `toString`..., as the schema of `PrincipalContext` and the claims' own values say), or is not JSON
 * data within those bounds (a `Date`, a function, a cycle).
 * `checked.roles` is frozen in place.
 */
export function copyPrincipal(name: string, principal: object, checked: PrincipalContext): PrincipalContext {
  let prototype: unknown;
  try {
    prototype = Object.getPrototypeOf(principal);
  } catch {
    throw new TypeError(`${name} cannot be read`);
  }
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`${name} must be a plain object (an object literal or JSON data), not a class instance`);
  }
  // A literal for the three fields every principal has (the dispatcher copies one every turn);
  // only other fields go through `defineProperty`.
  const copy: Record<string, unknown> = { tenant_id: checked.tenant_id, subject_id: checked.subject_id, roles: Object.freeze(checked.roles) };
  // Property names only (symbol-keyed fields are not copied): a tenth of what `Reflect.ownKeys`
  // costs, and the dispatcher copies a principal for every turn.
  let keys: string[];
  try {
    keys = Object.getOwnPropertyNames(principal);
  } catch {
    throw new TypeError(`${name} fields cannot be read`);
  }
  for (const key of keys) {
    if (CHECKED_FIELDS.has(key)) continue;
    let descriptor: PropertyDescriptor | undefined;
    try {
      descriptor = Object.getOwnPropertyDescriptor(principal, key);
    } catch {
      throw new TypeError(`${name}.${key} cannot be read`);
    }
    if (descriptor === undefined || descriptor.enumerable !== true) continue;
    // As below them (`copyUntrustedValue`) and in the schema of `PrincipalContext`: a claim named
    // `__proto__`, `toString` or another name of `Object.prototype` would shadow what every object
    // inherits in code that reads the principal. (A field that is not enumerable is no claim.)
    if (isForbiddenKey(key)) throw new TypeError(`${name}.${key} is a name no claim may have (FORBIDDEN_KEYS of @toolseal/guard)`);
    if (!Object.hasOwn(descriptor, 'value')) throw new TypeError(`${name}.${key} must be a data field, not an accessor`);
    const copied = copyUntrustedValue(descriptor.value, EXTRA_FIELD_LIMITS);
    if (!copied.ok) throw new TypeError(`${name}.${key} must be JSON data (${copied.violation.rule})`);
    Object.defineProperty(copy, key, { value: deepFreeze(copied.value), enumerable: true, writable: true, configurable: true });
  }
  return Object.freeze(copy) as unknown as PrincipalContext;
}
