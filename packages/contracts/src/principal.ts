/**
 * The authenticated principal of a call, supplied by the host from its own authentication. Never
 * taken from model arguments or from earlier tool output.
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
   * @maxItems 32
   */
  roles: string[];
}
