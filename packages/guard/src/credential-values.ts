/**
 * Credentials recognised by their form alone, inside any string: the values the sensitive-key scan
 * cannot see because they sit under an ordinary key (`"note": "use key AKIA..."`, a knowledge-base
 * article quoting a private key). Only forms a credential issuer fixed, with a distinctive prefix
 * or header and enough random characters after it that business text does not take that form: a
 * match is a leak, not a guess. Generic high-entropy strings (hex digests, UUIDs, order numbers) are
 * never flagged.
 */
export type CredentialValueKind =
  | 'private_key'
  | 'jwt'
  | 'aws_access_key_id'
  | 'github_token'
  | 'slack_token'
  | 'stripe_secret_key'
  | 'openai_api_key'
  | 'anthropic_api_key'
  | 'google_api_key'
  | 'authorization_header'
  | 'url_credentials';

// Each form with the start that anchors it: no character before it that could continue a token.
const FORMS: readonly (readonly [CredentialValueKind, RegExp])[] = [
  // PEM and OpenSSH private keys, PGP private key blocks (`-----BEGIN RSA PRIVATE KEY-----`, ...).
  ['private_key', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  // A JSON Web Token (or the first parts of a JWE): base64url of `{"` twice, dot-separated.
  ['jwt', /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\./],
  ['aws_access_key_id', /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/],
  ['github_token', /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,})/],
  ['slack_token', /(?<![A-Za-z0-9])xox[abposre]-[A-Za-z0-9-]{10,}/],
  ['stripe_secret_key', /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/],
  ['anthropic_api_key', /(?<![A-Za-z0-9_-])sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}/],
  ['openai_api_key', /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})/],
  ['google_api_key', /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/],
  // An HTTP credential as a header carries it: the scheme, one space, a token of 20 characters or more.
  ['authorization_header', /(?<![A-Za-z0-9])(?:Bearer|Basic) [A-Za-z0-9._~+/-]{20,}/],
  // `scheme://user:password@`: a connection string or a URL with a password in it.
  ['url_credentials', /[A-Za-z][A-Za-z0-9+.-]*:\/\/[A-Za-z0-9._~!$&'()*+,;=%-]+:[A-Za-z0-9._~!$&'()*+,;=%-]+@/],
];

/**
 * Literals every form contains, printable ASCII without `"` or `\`: wherever a form occurs in a
 * string, its literal occurs unchanged in the string's JSON text (only `"`, `\` and controls are
 * escaped there). One pass of this over a whole canonical text rules most outputs out at once
 * (about 3 µs per KB of text without any: irregexp tries each alternative at each position).
 */
const ANCHORS = /-----BEGIN |\.eyJ|A[KS]IA|gh[pousr]_|github_pat_|xox[abposre]-|k_(?:live|test)_|sk-(?:ant|proj|svcacct|admin)-|T3BlbkFJ|AIza|(?:Bearer|Basic) [A-Za-z0-9._~+/-]{20}|:\/\//;

/** The kind of the first credential form found in `text`, or `null` when there is none. */
export function findCredentialValue(text: string): CredentialValueKind | null {
  if (!ANCHORS.test(text)) return null;
  for (const [kind, form] of FORMS) if (form.test(text)) return kind;
  return null;
}

/**
 * `false` when no string (or key) of the JSON value whose text `JSON.stringify` or RFC 8785 wrote
 * as `jsonText` can hold a credential form: what a caller checks before walking the value's strings
 * with `findCredentialValue`. `true` only says the walk is needed. Not for other JSON writers: one
 * that escapes `/` or letters (`\/`, `\u0041`) can hide an anchor from this pass.
 */
export function mayHoldCredentialValue(jsonText: string): boolean {
  return ANCHORS.test(jsonText);
}
