// Every flag rule below is in one of three groups, and the group alone decides what `allowKeys`
// may lift: a credential or a control field of the boundary never (spec 000 refuses them in tool
// output whatever a contract says), a business-ambiguous rule yes (it also catches ordinary
// business fields, named next to it). The flag lists and the unliftable lists are both built from
// these groups, so a name a credential or control rule flags is unliftable by construction: there
// is no second list to keep in step with the first. A name still not ASCII after normalization
// (`non_ascii_key`) matches no list, so it may be a look-alike of any of them: never liftable either;
// nor is a name with nothing visible left to match (`invisible_key`).

/** Credential names: flagged exactly, never liftable. */
const CREDENTIAL_KEYS = [
  'authorization',
  'proxy_authorization',
  'proxy_authentication',
  'auth',
  'proxy_auth',
  'basic_auth',
  'x_auth',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'id_tokens',
  'bearer',
  'jwt',
  'jwts',
  'cookie',
  'cookies',
  'set_cookie',
  'set_cookies',
  'cookie_header',
  'cookie_jar',
  'session_cookie',
  'session_cookies',
  'auth_cookie',
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
  'session_ids',
  'session_token',
  'session_tokens',
  'session_key',
  'session_keys',
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
  // Plurals of named token kinds: lists of credentials, not counts (no `tokens` suffix rule).
  'auth_tokens',
  'api_tokens',
  'csrf_tokens',
  'xsrf_tokens',
  'auth_header',
  'cookie_value',
  'passcode',
  'otp',
  'otps',
  'otp_code',
  'mfa_code',
  'mfa_codes',
  // One-time and OAuth authorization codes: each is a credential for as long as it is valid.
  'authorization_code',
  'authorization_codes',
  'verification_code',
  'verification_codes',
  'one_time_password',
  'one_time_code',
  'totp',
  'recovery_code',
  'recovery_codes',
  'backup_code',
  'backup_codes',
  // A card's security code authenticates a payment (PCI DSS: sensitive authentication data).
  'cvv',
  'cvv2',
  'cvc',
  'card_security_code',
  'connection_string',
  'conn_string',
  'database_url',
  'dsn',
  // Named credentials of common frameworks and hosts: an application's key (Laravel's `APP_KEY`),
  // a GitHub personal access token, Express's session cookie (`connect.sid`).
  'app_key',
  'github_pat',
  'connect_sid',
  // Qualified forms of `pwd`, `otp` and `dsn`, which are too short to be suffixes.
  'db_pwd',
  'mysql_pwd',
  'sms_otp',
  'email_otp',
  'sentry_dsn',
  'database_dsn',
  'db_dsn',
];

/**
 * The boundary's own control fields (spec 000: principal, operation id, digests never reach the
 * model): flagged exactly, never liftable. Each with its plural, a list of them (`call_ids`,
 * `binding_digests`, `receipts`), unless a suffix or prefix rule below already catches it.
 */
const CONTROL_KEYS = [
  'call_id',
  'call_ids',
  'tool_call_id',
  'tool_use_id',
  'operation_id',
  'operation_ids',
  'idempotency_key',
  'request_sha256',
  'request_sha256s',
  'result_sha256',
  'result_sha256s',
  'call_binding_sha256',
  'request_digest',
  'request_digests',
  'result_digest',
  'result_digests',
  'binding_digest',
  'binding_digests',
  'binding_sha256',
  'binding_sha256s',
  'principal',
  'principal_ref',
  'principal_id',
  'principals',
  'tenant',
  'tenants',
  'tenant_id',
  'tenant_ids',
  'subject_id',
  'subject_ids',
  // provider correlation belongs to the protected audit (spec 000: provider_context)
  'provider_response_id',
  'provider_response_ids',
  'previous_response_id',
  'previous_response_ids',
  'previous_interaction_id',
  'previous_interaction_ids',
  // downstream receipts and status handles stay in the protected audit; approval and role fields
  // would let a tool output pose as an authorization decision
  'receipt',
  'receipts',
  'status_ref',
  'status_refs',
  'approval',
  'approved',
  'approvals',
  'approval_id',
  'approval_ids',
  'is_approved',
  'role',
  'roles',
  // The error catalog's own instructions to the model (spec 000: the recovery protocol is the
  // catalog's, never a tool's): a tool output carrying them could pose as an error of the boundary.
  'safe_message',
  'retry_after_ms',
];

/**
 * Listed names that are also ordinary business fields: flagged, but a host may lift them. Each
 * with the business field it also is.
 */
const BUSINESS_AMBIGUOUS_KEYS = [
  'authentication', // an account's authentication settings (`"authentication": "sso"`)
  'subject', // an e-mail's or a course's subject
  'response_id', // a survey's response (also the provider's turn id: no suffix rule for it)
  'response_ids',
  // An OAuth authorization code (a credential), or a payment's approval code on a receipt
  // (business data). `authorization_code` stays unliftable: the `authorization*` prefix flags it.
  'auth_code',
  'auth_codes',
  // The model projection's control vocabulary, which is also business language: an account's
  // `recovery` options, a vendor's `trust` tier, an artwork's `provenance`; and approval records
  // (spec 000 keeps them from the model), which are also a document workflow's own fields.
  'recovery',
  'trust',
  'provenance',
  'approved_by',
  'approver',
  'approval_status',
  'approval_required',
  // Names of the provider's own message and tool-call vocabulary, where tool output could pose as
  // an instruction or a call (spec 000: natural language stays in the data block, never elevated to
  // a system or developer instruction); also a recipe's `instructions` or a log's `tool_calls`.
  'instructions',
  'system_prompt',
  'system_message',
  'developer_message',
  'tool_call',
  'tool_calls',
  'function_call',
  'function_calls',
];

/**
 * Credential and control-field names no tool output may carry, in any spelling. Matching is on the
 * normalized form (see `normalizeKeyName`), so `Authorization`, `API-Key`, `apiKey`, `API.KEY`,
 * `ａｐｉ＿ｋｅｙ` and `api\u200bkey` all match `api_key`. Hosts add names with `extraKeys`.
 * All but the business-ambiguous `authentication`, `subject`, `response_id(s)`, `auth_code(s)`, `recovery`,
 * `trust`, `provenance`, `approved_by`, `approver`, `approval_status`, `approval_required`,
 * `instructions`, `system_prompt`, `system_message`, `developer_message`, `tool_call(s)` and
 * `function_call(s)` are in `UNLIFTABLE_KEYS`.
 */
export const DEFAULT_SENSITIVE_KEYS: readonly string[] = Object.freeze([...CREDENTIAL_KEYS, ...CONTROL_KEYS, ...BUSINESS_AMBIGUOUS_KEYS]);

/** Normalized endings that mark a credential whatever precedes them: never liftable. */
const CREDENTIAL_SUFFIXES = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'apikey',
  'privatekey',
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
  'authkey',
  // A cloud service account's key file (`gcp_service_account_json`, `service_account_key`): the
  // account itself is not a credential (Kubernetes' `serviceAccountName`), so no wider rule.
  'serviceaccountkey',
  'serviceaccountjson',
  // Short credential names that were flagged only as they are: qualified they are no less one
  // (`user_jwt`, `card_cvv`), and `*sessid` is a session cookie's name (`PHPSESSID`). Not `pwd`,
  // `otp` or `dsn`, which end ordinary names once separators are gone (`is_pwd`, `hotp`,
  // `ssd_sn`, `records_n`): their qualified forms are listed by name.
  'jwt',
  'jwts',
  'cvv',
  'sessid',
  // Plurals: a list of credentials is no less one (`user_passwords`, `stripe_api_keys`). Not
  // `tokens`: `prompt_tokens` and `max_tokens` are counts.
  'passwords',
  'passwds',
  'passphrases',
  'apikeys',
  'privatekeys',
  'secretkeys',
  'accesskeys',
  'signingkeys',
  'encryptionkeys',
  'masterkeys',
  'sshkeys',
  'passcodes',
  'authkeys',
  'serviceaccountkeys',
];

/** Normalized endings of the boundary's call and principal identifiers, singular and plural: never liftable. */
const CONTROL_SUFFIXES = [
  'toolcallid',
  'toolcallids',
  'tooluseid',
  'tooluseids',
  'functioncallid',
  'functioncallids',
  'providercallid',
  'providercallids',
  'principalid',
  'principalids',
  'principalref',
  'principalrefs',
  'idempotencykey', // `x_idempotency_key`, a header's name
  'idempotencykeys',
];

/**
 * Normalized endings that also end business names: flagged, liftable by exact name. The
 * credential and control names among them are listed above and stay unliftable (`session_id`,
 * `authorization`, `cookie`, `session_cookie`, `operation_id(s)`, `tenant_id(s)`).
 */
const BUSINESS_AMBIGUOUS_SUFFIXES = [
  'sessionid', // `training_session_id`, a conference's session
  'authorization', // `prior_authorization` (health insurance), `work_authorization`
  'cookie', // `fortune_cookie`
  'operationid', // `cooperation_id`
  'operationids',
  'tenantid', // `subtenant_id`
  'tenantids',
  'subjectid', // `course_subject_id`
  'subjectids',
];

/**
 * Normalized endings that mark a credential or control field whatever precedes them
 * (`github_token`, `webhookSecret`, `db-password`, `stripe_api_key`, `owner_principal_id`,
 * `function_call_id`), or that also end business names (`*cookie`, `*operationid`: see
 * `UNLIFTABLE_KEY_SUFFIXES` for which a host may lift). `tokens_used` or `max_tokens` do not
 * end in `token` and are not flagged (there is deliberately no `tokens` suffix: `prompt_tokens` is
 * a count, nor a `cookies` one: `accept_cookies` is a consent flag); `is_secret` is (a false
 * positive no `allowKeys` can lift, as `*secret` marks credentials: rename such a flag), and so is
 * `cooperation_id` (`*operationid`, which a host can lift). There is no bare `callid` suffix
 * (`recall_id` is a business id), only the call ids providers and the boundary use.
 */
export const SENSITIVE_KEY_SUFFIXES: readonly string[] = Object.freeze([...CREDENTIAL_SUFFIXES, ...CONTROL_SUFFIXES, ...BUSINESS_AMBIGUOUS_SUFFIXES]);

/**
 * Normalized beginnings of a credential's name: never liftable. They are as often followed by the
 * credential's metadata (`access_token_expires_at`, `access_key_id`, `password_last_changed`) as by
 * the credential itself or a form of it (`password_hash`, `private_key_pem`, `api_key_v2`,
 * AWS's `SecretString`), and a name alone cannot tell them apart: such metadata is renamed
 * (`token_expires_at`, `key_id`, `last_password_change`), never lifted.
 */
const CREDENTIAL_PREFIXES = [
  'secretkey',
  'secretaccesskey',
  'secretvalue',
  'secretstring',
  'secretbinary',
  'password',
  'passwd',
  'apikey',
  'accesstoken',
  'refreshtoken',
  'privatekey',
  'clientsecret',
  'authorization',
  'bearer',
  'accesskey',
  'signingkey',
  'encryptionkey',
  'masterkey',
  'sshkey',
  'connectionstring',
  'databaseurl',
];

/**
 * The boundary's binding digest (`call_binding`, `callBindingDigest`) and the error catalog's
 * instructions to the model in any form (`safe_messages`, `retry_after`, `retry_after_seconds`):
 * never liftable.
 */
const CONTROL_PREFIXES = ['callbinding', 'safemessage', 'retryafter'];

/**
 * Normalized beginnings of credential and control names, flagged whatever follows them
 * (`password_hash`, `api_key_v2`, `SecretString`, `secret_value`, `call_binding`,
 * `access_token_expires`... the last is a false positive, accepted: reading a token's metadata is
 * rarely worth the risk of passing the token itself, and such a field is renamed). There is no bare `secret` prefix (`secretary`), `auth` prefix (`author`,
 * `authority`, `authored_by`), `cookie` prefix (`cookies_accepted`, `cookie_consent`) or `binding`
 * prefix (`binding_type`, a book's `binding`). None of them can be lifted (`UNLIFTABLE_KEY_PREFIXES`).
 */
export const SENSITIVE_KEY_PREFIXES: readonly string[] = Object.freeze([...CREDENTIAL_PREFIXES, ...CONTROL_PREFIXES]);

/**
 * Normalized endings `allowKeys` can never lift: the credential and control suffix rules
 * (`github_token`, `db_password`, `aws_credentials`, `function_call_id`), and `sha256`: a digest is
 * never a business name to lift (the boundary's own are flagged by name).
 */
export const UNLIFTABLE_KEY_SUFFIXES: readonly string[] = Object.freeze([...CREDENTIAL_SUFFIXES, ...CONTROL_SUFFIXES, 'sha256']);

/** Normalized beginnings `allowKeys` can never lift: every prefix rule (`password_hash`, `SecretString`, `call_binding`). */
export const UNLIFTABLE_KEY_PREFIXES: readonly string[] = Object.freeze([...CREDENTIAL_PREFIXES, ...CONTROL_PREFIXES]);

// Format characters (zero-width space, joiners, word joiner, BOM, soft hyphen, bidi controls...)
// and the rest of the default-ignorable code points: invisible, so they must not split a name.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
// The TAG block (U+E0000-U+E007F): invisible too, but each one spells an ASCII character that
// several model tokenizers read as text ("ASCII smuggling"), so a key holding one carries a name
// nobody sees. The variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF) likewise encode a byte
// each after a visible name. Not removed: either leaves the key non-ASCII.
const HIDDEN_TEXT = /[\u{E0000}-\u{E007F}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const NON_ASCII = /[^\x00-\x7f]/;
const SEPARATORS = /[^a-z0-9]/g;

/** A key after normalization: its compact ASCII form, or `null` when it is still not ASCII. */
export type NormalizedKeyName = string | null;

/**
 * Normalizes a key for matching: NFKC (fullwidth and mathematical letters become ASCII), invisible
 * characters removed, lowercased, and every character other than `a-z0-9` removed (so separators
 * and camelCase boundaries no longer matter: `API_Key`, `api-key`, `apiKey` → `apikey`).
 * Returns `null` when the key is still not ASCII after NFKC, or holds a TAG character
 * (U+E0000-U+E007F, which spells ASCII invisibly) or a variation selector (U+FE00-U+FE0F,
 * U+E0100-U+E01EF, which encode a byte each): such a key cannot be matched against the list
 * (a Cyrillic `о` in `tоken`, `token` written in TAG characters), so the scanner reports it as
 * `non_ascii_key` and `allowKeys` cannot lift it. A key of invisible characters, white space and
 * separators only normalizes to `""`: when it is not printable ASCII, the scanner reports it as
 * `invisible_key`.
 */
export function normalizeKeyName(key: string): NormalizedKeyName {
  let text = key;
  if (!PRINTABLE_ASCII.test(text)) {
    if (HIDDEN_TEXT.test(text)) return null;
    text = text.normalize('NFKC').replace(INVISIBLE, '');
    if (NON_ASCII.test(text)) return null;
  }
  return text.toLowerCase().replace(SEPARATORS, '');
}

/**
 * Whether `key` has no visible name: it is not printable ASCII and normalizes to `""` (zero-width
 * characters only, `"\u200b\u200c"`; a no-break space or a tab). The scanner reports it as
 * `invisible_key`, and `allowKeys` cannot lift it: nothing is left to judge, and a run of
 * invisible characters can itself encode a name. A printable ASCII key of separators only (`""`,
 * `"_"`, xml2js's `"$"`) is visible and is not flagged.
 */
export function isInvisibleKeyName(key: string, normalized: NormalizedKeyName): boolean {
  return normalized === '' && !PRINTABLE_ASCII.test(key);
}

/**
 * `text` without its trailing ASCII digits. A loop from the end, not `/[0-9]+$/`: that expression
 * has no start anchor, so V8 tries it at every position of a run of digits followed by a letter,
 * and a 64K-character key of digits then `a` (which the default limits accept) cost 1.8 s.
 */
function withoutTrailingDigits(text: string): string {
  let end = text.length;
  while (end > 0) {
    const unit = text.charCodeAt(end - 1);
    if (unit < 0x30 || unit > 0x39) break;
    end--;
  }
  return end === text.length ? text : text.slice(0, end);
}
// Words that name a form of the value, not another thing: `token_value`, `credentials_json`.
const FORM_WORDS = /(?:value|json)$/;
// Encodings of the value, named with digits: tried before the digits are cut (`token_base64`, `secret_b64`).
const ENCODING_WORDS = /(?:base64|base32|b64|hex)$/;

/** The match of `stem` by the credential rules only (exact names and suffixes), or `null`. */
function credentialRuleMatch(stem: string): string | null {
  if (stem === '') return null;
  if (CREDENTIAL_KEY_SET.has(stem)) return stem;
  const suffix = CREDENTIAL_SUFFIXES.find((rule) => stem.endsWith(rule));
  return suffix === undefined ? null : `*${suffix}`;
}

/**
 * The match of a numbered or versioned copy of a credential name, or of a name for a form of its
 * value (`secret_1`, `token2`, `my_token_2`, `cookie2`, `token_v2`, `jwt_v2`, `token_value`,
 * `credentials_json`, `token_value_v2`): the normalized name without its trailing digits, or
 * without a version (`v` and digits, as `@toolseal/result`'s link-field naming reads `url_v2`), then
 * without a trailing `value` or `json`, and, first of all, without a trailing encoding (`base64`,
 * `base32`, `b64`, `hex`: `token_base64`), judged by the credential rules only (exact names and
 * suffixes), or `null`. Each name is cut at most four ways, so the judgment costs a few suffix
 * checks. Control and business-ambiguous names are not judged this way: `receipt_1` or `role_2`
 * are ordinary business keys as often as not. Count words are not form words, so
 * `token_count2`, `prompt_tokens_v2` and `max_tokens` stay as they were.
 */
export function qualifiedCredentialMatch(normalized: string): string | null {
  // Most names end in none of them: two character checks before the expression.
  const last = normalized.charCodeAt(normalized.length - 1);
  if (last === 0x34 || last === 0x32 || last === 0x78) {
    const decoded = normalized.replace(ENCODING_WORDS, '');
    if (decoded !== normalized) {
      const match = credentialRuleMatch(decoded);
      if (match !== null) return match;
    }
  }
  let stem = normalized;
  const numbered = withoutTrailingDigits(normalized);
  if (numbered !== normalized) {
    const match = credentialRuleMatch(numbered);
    if (match !== null) return match;
    // A version: `token_v2` normalizes to `tokenv2`. Tried after the digits alone, so `cvv3` is
    // still `cvv`.
    stem = numbered.endsWith('v') ? numbered.slice(0, -1) : numbered;
    if (stem !== numbered) {
      const versioned = credentialRuleMatch(stem);
      if (versioned !== null) return versioned;
    }
  }
  const unqualified = stem.replace(FORM_WORDS, '');
  return unqualified === stem ? null : credentialRuleMatch(unqualified);
}

/**
 * Normalized names `allowKeys` can never lift: every listed credential and control field of the
 * boundary (all of `DEFAULT_SENSITIVE_KEYS` but `authentication`, `subject`, `response_id` and
 * `response_ids`), which spec 000 refuses in tool output whatever a contract says. What
 * `allowKeys` is for are the business names the broader rules catch too (a survey's
 * `response_id`, `subtenant_id`, `fortune_cookie`, `cooperation_id`).
 */
export const UNLIFTABLE_KEYS: readonly string[] = Object.freeze([
  // Listed names are ASCII: they always normalize.
  ...new Set([...CREDENTIAL_KEYS, ...CONTROL_KEYS].map((name) => normalizeKeyName(name) ?? name)),
]);
const UNLIFTABLE_KEY_SET: ReadonlySet<string> = new Set(UNLIFTABLE_KEYS);
/** The credential names, normalized (listed names are ASCII: they always normalize). */
const CREDENTIAL_KEY_SET: ReadonlySet<string> = new Set(CREDENTIAL_KEYS.map((name) => normalizeKeyName(name) ?? name));

/**
 * Whether a credential rule, not a control or business-ambiguous one, flags `key` in any spelling:
 * a listed credential name (`password`, `api_key`, `authorization`), a credential suffix
 * (`*token`, `*secret`) or prefix (`password*`), or a qualified credential name. False for a key
 * that does not normalize to ASCII. Throws a `TypeError` for a key that is not a string.
 */
export function isCredentialKeyName(key: string): boolean {
  if (typeof key !== 'string') throw new TypeError(`isCredentialKeyName: key must be a string, got ${key === null ? 'null' : typeof key}`);
  const normalized = normalizeKeyName(key);
  if (normalized === null || normalized === '') return false;
  return (
    CREDENTIAL_KEY_SET.has(normalized) ||
    CREDENTIAL_SUFFIXES.some((suffix) => normalized.endsWith(suffix)) ||
    CREDENTIAL_PREFIXES.some((prefix) => normalized.startsWith(prefix)) ||
    qualifiedCredentialMatch(normalized) !== null
  );
}

/**
 * Whether `allowKeys` may lift `key`: false when a credential or control rule flags it
 * (`UNLIFTABLE_KEYS`, `UNLIFTABLE_KEY_SUFFIXES`, `UNLIFTABLE_KEY_PREFIXES`) in any spelling, when
 * it is still not ASCII after NFKC and invisible-character removal or holds a TAG character
 * (`non_ascii_key`: a Cyrillic `tоken` cannot be told from `token` by matching, nor `prénom` from a
 * look-alike), or when it has no visible name (`invisible_key`: not printable ASCII, normalized
 * to `""`); true otherwise, so only ASCII names flagged by a business-ambiguous rule alone (or not
 * at all) can be lifted. Throws a `TypeError` for a key that is not a string.
 */
export function isLiftableKeyName(key: string): boolean {
  if (typeof key !== 'string') throw new TypeError(`isLiftableKeyName: key must be a string, got ${key === null ? 'null' : typeof key}`);
  const normalized = normalizeKeyName(key);
  if (normalized === null || isInvisibleKeyName(key, normalized)) return false;
  return (
    !UNLIFTABLE_KEY_SET.has(normalized) &&
    !UNLIFTABLE_KEY_SUFFIXES.some((suffix) => normalized.endsWith(suffix)) &&
    !UNLIFTABLE_KEY_PREFIXES.some((prefix) => normalized.startsWith(prefix)) &&
    qualifiedCredentialMatch(normalized) === null
  );
}
