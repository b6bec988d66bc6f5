/**
 * Credential and control-field names no tool output may carry, in any spelling. Matching is on the
 * normalized form (see `normalizeKeyName`), so `Authorization`, `API-Key`, `apiKey`, `API.KEY`,
 * `ａｐｉ＿ｋｅｙ` and `api\u200bkey` all match `api_key`. Hosts add names with `extraKeys`.
 */
export const DEFAULT_SENSITIVE_KEYS: readonly string[] = Object.freeze([
  // credentials
  'authorization',
  'proxy_authorization',
  'auth',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'bearer',
  'jwt',
  'cookie',
  'cookies',
  'set_cookie',
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
  'tool_call_id',
  'tool_use_id',
  'operation_id',
  'idempotency_key',
  'request_sha256',
  'result_sha256',
  'call_binding_sha256',
  'principal',
  'principal_ref',
  'tenant',
  'tenant_id',
  'subject',
  'subject_id',
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
 * Normalized endings that mark a credential whatever precedes them (`github_token`,
 * `webhookSecret`, `db-password`, `stripe_api_key`). `tokens_used` or `max_tokens` do not end in
 * `token` and are not flagged (there is deliberately no `tokens` suffix: `prompt_tokens` is a
 * count); `is_secret` is (a false positive the host can lift with `allowKeys`).
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
]);

/**
 * Normalized beginnings that mark a credential whatever follows them (`password_hash`,
 * `api_key_v2`, `access_token_expires`... the last is a false positive, accepted: reading a token's
 * metadata is rarely worth the risk of passing the token itself).
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
]);

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
