/**
 * Credentials recognised by their form alone, inside any string: the values the sensitive-key scan
 * cannot see because they sit under an ordinary key (`"note": "use key AKIA..."`, a knowledge-base
 * article quoting a private key). Forms an issuer fixed (a distinctive prefix or header and enough
 * random characters after it), an HTTP `Bearer`/`Basic` credential and a URL with a password in
 * it: shapes business text does not take, so a match is a leak, not a guess. Generic high-entropy
 * strings (hex digests, UUIDs, order numbers) are never flagged. Text is matched as it is, without
 * Unicode normalization: a token broken up by invisible characters is not found.
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

// Each form starts where no character before it could continue the same run (a lookbehind), so
// a match is tried at most once per run and every form is linear in the text: a form free to start
// at each character of a long run rescans the rest of the run from each one (quadratic; a 64 K run
// of letters after a `://` measured 4 s). Each form comes with its anchor: a literal (or a
// fixed-length run of a class) that every match of the form contains.
const FORMS: readonly (readonly [CredentialValueKind, string, RegExp])[] = [
  // PEM and OpenSSH private keys, PGP private key blocks (`-----BEGIN RSA PRIVATE KEY-----`, ...).
  ['private_key', '-----BEGIN ', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  // A JSON Web Token (or the first parts of a JWE): base64url of `{"` twice, dot-separated.
  ['jwt', '\\.eyJ', /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\./],
  ['aws_access_key_id', 'A[KS]IA', /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/],
  ['github_token', 'gh[pousr]_|github_pat_', /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,})/],
  // Bot, user, app, refresh and configuration tokens: `xoxb-` and a numeric team or app id; an
  // app-level token; an incoming-webhook URL.
  [
    'slack_token',
    'xox[abprse]-|xapp-|hooks\\.slack\\.com',
    /(?<![A-Za-z0-9-])(?:xox[abprse]-[0-9]+-[A-Za-z0-9-]{8,}|xapp-[0-9]+-[A-Za-z0-9-]{8,})|hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]{16,}/,
  ],
  ['stripe_secret_key', 'k_(?:live|test)_', /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/],
  ['anthropic_api_key', 'sk-ant-', /(?<![A-Za-z0-9_-])sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}/],
  ['openai_api_key', 'sk-(?:proj|svcacct|admin)-|T3BlbkFJ', /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})/],
  ['google_api_key', 'AIza', /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/],
  // A bearer token as a header carries it (the scheme in any case, then one or more spaces, RFC
  // 9110 §11.4): 20 characters or more, a digit among them (prose after "Bearer" has none:
  // `Bearer YOUR_ACCESS_TOKEN_HERE`). Basic credentials are decided by decoding them
  // (`isBasicCredential`).
  [
    'authorization_header',
    '[Bb][Ee][Aa][Rr][Ee][Rr] +[A-Za-z0-9._~+/-]{20}',
    /(?<![A-Za-z0-9])[Bb][Ee][Aa][Rr][Ee][Rr] +(?=[A-Za-z._~+/-]*[0-9])[A-Za-z0-9._~+/-]{20,}/,
  ],
  // `scheme://user:password@` (the user may be empty: `redis://:password@host`), a connection
  // string or a URL with a password in it; not a masked one (`scott:***@`, `deploy:xxxxxx@`). The
  // password takes RFC 3986's unreserved and sub-delimiter characters only: a colon, brackets,
  // braces or `|` would also join a port to a later e-mail address in ordinary text
  // (`http://host:8080,10:30,bob@example.com`, `http://localhost:3000|foo@example.com`), and a
  // false match refuses the whole tool output. A password holding them is not found.
  [
    'url_credentials',
    ':\\/\\/',
    /(?<=[A-Za-z0-9+.-]):\/\/[A-Za-z0-9._~!$&'()*+,;=%-]*:(?![*xX]+@)[A-Za-z0-9._~!$&'()*+,;=%-]+@/,
  ],
  // The same for the special schemes of the WHATWG URL standard that carry credentials (`http`,
  // `https`, `ws`, `wss`, `ftp`, in any case), which a URL parser reads with any number of `/` or
  // `\` after the colon: `https:/admin:pw@host`, `https:\\admin:pw@host` and
  // `https:///admin:pw@host` all give the password `pw`. At least one: without any the parser
  // also reads one from `HTTPS:443,ops@example.com` or `ftp:enabled,port:21,admin@example.com`,
  // ordinary text a match would refuse, so `https:admin:pw@host` is not found.
  [
    'url_credentials',
    '[Hh][Tt][Tt][Pp][Ss]?:|[Ww][Ss][Ss]?:|[Ff][Tt][Pp]:',
    /(?<![A-Za-z0-9+.-])(?:[Hh][Tt][Tt][Pp][Ss]?|[Ww][Ss][Ss]?|[Ff][Tt][Pp]):[/\\]+[A-Za-z0-9._~!$&'()*+,;=%-]*:(?![*xX]+@)[A-Za-z0-9._~!$&'()*+,;=%-]+@/,
  ],
];

// `Basic ` and base64 of `user:password` (RFC 7617), at least 8 characters: decoded, it must be
// printable ASCII with a colon, which prose after the word "Basic" practically never is.
const BASIC = /(?<![A-Za-z0-9])[Bb][Aa][Ss][Ii][Cc] +([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g;
const USER_PASS = /^[\x20-\x7e]*:[\x20-\x7e]*$/;

function isBasicCredential(text: string): boolean {
  BASIC.lastIndex = 0;
  for (let match = BASIC.exec(text); match !== null; match = BASIC.exec(text)) {
    const encoded = match[1] as string;
    if (encoded.length % 4 === 1) continue;
    let decoded: string;
    try {
      decoded = atob(encoded);
    } catch {
      continue;
    }
    if (USER_PASS.test(decoded)) return true;
  }
  return false;
}

// `Basic` credentials: the anchor of `isBasicCredential`, checked after the forms.
const BASIC_ANCHOR = '[Bb][Aa][Ss][Ii][Cc] +[A-Za-z0-9+/]{8}';
const ANCHOR_SOURCES = [...FORMS.map(([, anchor]) => anchor), BASIC_ANCHOR];

/**
 * The anchors, printable ASCII without `"` or `\\`: wherever a form occurs in a string, its anchor
 * occurs unchanged in the string's JSON text (only `"`, `\\` and controls are escaped there). One
 * pass of this over a whole canonical text rules most outputs out at once (about 3 µs per KB of
 * text without any: irregexp tries each alternative at each position).
 */
const ANCHORS = new RegExp(ANCHOR_SOURCES.map((source) => `(?:${source})`).join('|'));
// The same with one group per form: a string is tested only against the forms whose anchor it
// holds (a link's `://` costs one form, not twelve).
const ANCHOR_GROUPS = new RegExp(ANCHOR_SOURCES.map((source) => `(${source})`).join('|'), 'g');

/** The kind of a credential form found in `text` (the first anchor's that matches), or `null` when there is none. */
export function findCredentialValue(text: string): CredentialValueKind | null {
  let tested = 0; // one bit per anchor already followed
  ANCHOR_GROUPS.lastIndex = 0;
  for (let match = ANCHOR_GROUPS.exec(text); match !== null; match = ANCHOR_GROUPS.exec(text)) {
    let group = 1;
    while (match[group] === undefined) group++;
    const index = group - 1;
    // Anchors may overlap (`AKIAIza`): the next search starts one character on.
    ANCHOR_GROUPS.lastIndex = match.index + 1;
    if ((tested & (1 << index)) !== 0) continue;
    tested |= 1 << index;
    const form = FORMS[index];
    if (form === undefined) {
      if (isBasicCredential(text)) return 'authorization_header';
    } else if (form[2].test(text)) {
      return form[0];
    }
  }
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
