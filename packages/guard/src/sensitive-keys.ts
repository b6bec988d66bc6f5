/**
 * Credential and control-field names no tool output may carry, in any spelling. Matching is on the
 * normalized form (see `normalizeKeyName`), so `Authorization`, `API-Key`, `apiKey`, `API.KEY`,
 * `ａｐｉ＿ｋｅｙ` and `api\u200bkey` all match `api_key`. Hosts add names with `extraKeys`.
 */
export const DEFAULT_SENSITIVE_KEYS: readonly string[] = Object.freeze([
  // credentials
  'authorization',
  'proxy_authorization',
  'authentication',
  'proxy_authentication',
  'auth',
  'proxy_auth',
  'basic_auth',
  'x_auth',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'bearer',
  'jwt',
  'cookie',
  'cookies',
  'set_cookie',
  'cookie_header',
  'cookie_jar',
  'session_cookies',
  'auth_cookies',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'client_secret',
  'api_key',
  'x_api_key',
  'private_key',
  'session_id',
  'sessionid',
  'session_token',
  'session_key',
  'credential',
  'credentials',
  'secrets',
  'secret_key',
  'secret_access_key',
  'aws_secret_access_key',
  'access_key',
  'signing_key',
  'encryption_key',
  'master_key',
  'client_key',
  'ssh_key',
  // `tokens` alone is a credential list; `tokens_used`, `max_tokens`, `token_count` are usage
  // counts and stay allowed (no `tokens` suffix or prefix rule).
  'tokens',
  'auth_header',
  'cookie_value',
  'passcode',
  'otp',
  'mfa_code',
  'connection_string',
  'conn_string',
  'database_url',
  'dsn',
  // the boundary's own control fields (spec 000: principal, operation id, digests never reach the model)
  'call_id',
  'call_ids',
  'tool_call_id',
  'tool_use_id',
  'operation_id',
  'idempotency_key',
  'request_sha256',
  'result_sha256',
  'call_binding_sha256',
  'request_digest',
  'result_digest',
  'binding_digest',
  'binding_sha256',
  'principal',
  'principal_ref',
  'principal_id',
  'principals',
  'tenant',
  'tenant_id',
  'subject',
  'subject_id',
  // provider correlation belongs to the protected audit (spec 000: provider_context); no suffix
  // rule, so a survey tool's `survey_response_id` stays allowed
  'response_id',
  'response_ids',
  'provider_response_id',
  'previous_response_id',
  'previous_interaction_id',
  // downstream receipts and status handles stay in the protected audit; approval and role fields
  // would let a tool output pose as an authorization decision
  'receipt',
  'status_ref',
  'approval',
  'approved',
  'role',
  'roles',
]);

/**
 * Normalized endings that mark a credential or control field whatever precedes them
 * (`github_token`, `webhookSecret`, `db-password`, `stripe_api_key`, `session_cookie`,
 * `x_operation_id`, `owner_principal_id`, `function_call_id`). `tokens_used` or `max_tokens` do not
 * end in `token` and are not flagged (there is deliberately no `tokens` suffix: `prompt_tokens` is
 * a count, nor a `cookies` one: `accept_cookies` is a consent flag); `is_secret` is (a false
 * positive no `allowKeys` can lift, as `*secret` marks credentials: rename such a flag), and so is
 * `cooperation_id` (`*operationid`, which a host can lift). There
 * is no bare `callid` suffix (`recall_id` is a business id), only the call ids providers and the
 * boundary use.
 */
export const SENSITIVE_KEY_SUFFIXES: readonly string[] = Object.freeze([
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'apikey',
  'privatekey',
  'sessionid',
  'authorization',
  'credential',
  'credentials',
  'secrets',
  'secretkey',
  'accesskey',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'sshkey',
  'passcode',
  'authheader',
  'connectionstring',
  'connstring',
  'databaseurl',
  'cookie',
  'authkey',
  // control fields (spec 000: call/operation ids and principal identifiers never reach the model)
  'operationid',
  'operationids',
  'toolcallid',
  'toolcallids',
  'tooluseid',
  'tooluseids',
  'functioncallid',
  'functioncallids',
  'providercallid',
  'principalid',
  'principalids',
  'principalref',
  'tenantid',
  'tenantids',
]);

/**
 * Normalized beginnings that mark a credential whatever follows them (`password_hash`,
 * `api_key_v2`, `SecretString`, `secret_value`, `call_binding`, `access_token_expires`... the last
 * is a false positive, accepted: reading a token's metadata is rarely worth the risk of passing the
 * token itself). There is no bare `secret` prefix (`secretary`), `auth` prefix (`author`,
 * `authority`, `authored_by`), `cookie` prefix (`cookies_accepted`, `cookie_consent`) or `binding`
 * prefix (`binding_type`, a book's `binding`).
 */
export const SENSITIVE_KEY_PREFIXES: readonly string[] = Object.freeze([
  'password',
  'passwd',
  'apikey',
  'accesstoken',
  'refreshtoken',
  'privatekey',
  'clientsecret',
  'authorization',
  'bearer',
  'secretkey',
  'secretaccesskey',
  'accesskey',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'sshkey',
  'connectionstring',
  'databaseurl',
  'secretvalue',
  'secretstring',
  'secretbinary',
  'callbinding',
]);

/**
 * Normalized names `allowKeys` can never lift: the credentials and the boundary's own control
 * fields, which spec 000 refuses in tool output whatever a contract says (authorization, token,
 * cookie, password, call and operation ids, binding digests, principal identifiers, receipts,
 * approvals). What `allowKeys` is for are the business names the broader rules catch too (a
 * survey's `response_id`, `subtenant_id`, `fortune_cookie`, `is_secret`).
 */
export const UNLIFTABLE_KEYS: readonly string[] = Object.freeze([
  'authorization',
  'proxyauthorization',
  'auth',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'bearer',
  'jwt',
  'cookie',
  'cookies',
  'setcookie',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'clientsecret',
  'apikey',
  'xapikey',
  'privatekey',
  'sessionid',
  'sessiontoken',
  'callid',
  'toolcallid',
  'operationid',
  'idempotencykey',
  'principalref',
  'tenantid',
  'subjectid',
  'receipt',
  'statusref',
  'approval',
  'approved',
]);

/** Normalized endings `allowKeys` can never lift (`github_token`, `db_password`, `request_sha256`). */
export const UNLIFTABLE_KEY_SUFFIXES: readonly string[] = Object.freeze(['token', 'secret', 'password', 'apikey', 'privatekey', 'sha256']);

// Format characters (zero-width space, joiners, word joiner, BOM, soft hyphen, bidi controls...)
// and the rest of the default-ignorable code points: invisible, so they must not split a name.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const NON_ASCII = /[^\x00-\x7f]/;
const SEPARATORS = /[^a-z0-9]/g;

/** A key after normalization: its compact ASCII form, or `null` when it is still not ASCII. */
export type NormalizedKeyName = string | null;

/**
 * Normalizes a key for matching: NFKC (fullwidth and mathematical letters become ASCII), invisible
 * characters removed, lowercased, and every character other than `a-z0-9` removed (so separators
 * and camelCase boundaries no longer matter: `API_Key`, `api-key`, `apiKey` → `apikey`).
 * Returns `null` when the key is still not ASCII after NFKC: such a key cannot be matched against
 * the list (a Cyrillic `о` in `tоken`), so the scanner reports it as `non_ascii_key`.
 */
export function normalizeKeyName(key: string): NormalizedKeyName {
  let text = key;
  if (!PRINTABLE_ASCII.test(text)) {
    text = text.normalize('NFKC').replace(INVISIBLE, '');
    if (NON_ASCII.test(text)) return null;
  }
  return text.toLowerCase().replace(SEPARATORS, '');
}

/**
 * Whether `allowKeys` may lift `key`: false for a credential or a control field of the boundary
 * (`UNLIFTABLE_KEYS`, `UNLIFTABLE_KEY_SUFFIXES`) in any spelling, true otherwise. A key that is
 * still not ASCII after NFKC cannot be matched and may be lifted as it is.
 */
export function isLiftableKeyName(key: string): boolean {
  const normalized = normalizeKeyName(key);
  if (normalized === null) return true;
  return !UNLIFTABLE_KEYS.includes(normalized) && !UNLIFTABLE_KEY_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}
