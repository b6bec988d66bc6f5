import type { PrincipalContext } from '@toolseal/contracts';

/** The fields a principal's checker reads itself; `copyPrincipal` copies every other one as it is. */
const CHECKED_FIELDS: ReadonlySet<string> = new Set(['tenant_id', 'subject_id', 'roles']);

/**
 * The frozen copy of a host's principal that every later step uses: `checked` (the `tenant_id`,
 * `subject_id` and `roles` the caller read once from `principal` and checked) plus every other own
 * enumerable string-keyed field of `principal`, shallowly, as read once from its descriptor. A host's
 * principal may carry more than `PrincipalContext` (a `suspended` flag its facts source or a trusted
 * check reads, say), and dropping such a field would turn "deny if suspended" into "allow". A field
 * that is an accessor, or that cannot be read (a Proxy trap that throws), throws a `TypeError`
 * naming it (after `name`, such as `'validate: actor'`): a getter could answer the check one way and a later reader another.
 * The copy is built with `defineProperty`, so an own `__proto__` key stays a field. `checked.roles`
 * is frozen in place.
 */
export function copyPrincipal(name: string, principal: object, checked: PrincipalContext): PrincipalContext {
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
    if (!Object.hasOwn(descriptor, 'value')) throw new TypeError(`${name}.${key} must be a data field, not an accessor`);
    Object.defineProperty(copy, key, { value: descriptor.value, enumerable: true, writable: true, configurable: true });
  }
  return Object.freeze(copy) as unknown as PrincipalContext;
}
