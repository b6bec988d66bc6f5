import type { JsonValue } from './json.js';

/**
 * The authenticated principal of a call, supplied by the host from its own authentication. Never
 * taken from model arguments or from earlier tool output.
 *
 * Besides the three fields every principal has, a host may keep further claims of its own beside
 * the identity (a `suspended` flag a trusted check or facts source reads, say): any other member
 * holds a JSON value. Dropping such a claim on the way would turn "deny if suspended" into
 * "allow", so the dispatcher and the proposal validator keep every one (in the deep-frozen copy
 * `copyPrincipal` of `@toolseal/proposal` makes, within its bounds). The schema refuses the claim
 * names `JsonObject` refuses (`__proto__`, `constructor`, `prototype`, `toString`...).
 * @propertyNames {"not":{"enum":["__proto__","constructor","prototype","toString","toLocaleString","valueOf","hasOwnProperty","isPrototypeOf","propertyIsEnumerable","__defineGetter__","__defineSetter__","__lookupGetter__","__lookupSetter__"]}}
 */
export interface PrincipalContext {
  /**
   * The tenant the principal acts in. Trusted: comes from the host's authentication.
   * @minLength 1
   * @maxLength 128
   */
  tenant_id: string;
  /**
   * The authenticated actor (user or service) within the tenant. Trusted.
   * @minLength 1
   * @maxLength 128
   */
  subject_id: string;
  /**
   * Roles the host granted this principal for this session. Trusted; used by trusted checks only.
   * Required: an empty list when the host grants none.
   * @maxItems 32
   */
  roles: string[];
  /**
   * Any further claim the host keeps beside the identity (a `suspended` flag, say): JSON data,
   * read by trusted checks only, never by the model. Not `undefined`: the runtime copy refuses a
   * value that is not JSON data. A claim a principal may not carry is read as possibly absent
   * (`noUncheckedIndexedAccess` types it so). Any name reads as a claim, so the compiler does not
   * catch a misspelt one (`principal.suspend` for `suspended`): a check that denies on a claim
   * reads it through one function or constant per name, and treats a missing claim as the host
   * decides (absent `suspended` is not "not suspended" unless the host says so).
   */
  readonly [claim: string]: JsonValue;
}
