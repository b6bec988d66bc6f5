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
const FORMS: readonly (readonly [CredentialValueKind, string, RegExp | ((text: string) => boolean)])[] = [
  // PEM and OpenSSH private keys, PGP private key blocks (`-----BEGIN RSA PRIVATE KEY-----`, ...).
  ['private_key', '-----BEGIN ', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  // A JSON Web Token (RFC 7519), signed or encrypted (`isJsonWebToken`); the anchor is its
  // header's first characters, base64url of `{"`.
  ['jwt', 'eyJ[A-Za-z0-9_-]{8}', isJsonWebToken],
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
  // false match refuses the whole tool output. A password holding them is not found. The user may
  // hold an unencoded `@` (an e-mail login, `smtp://alice@example.com:pw@host`): a URL parser ends
  // the user information at its last `@` and the user at its first colon, so the password it reads
  // starts where this match's does and holds at least what the match holds (up to the first `@`).
  [
    'url_credentials',
    ':\\/\\/',
    /(?<=[A-Za-z0-9+.-]):\/\/[A-Za-z0-9._~!$&'()*+,;=%@-]*:(?![*xX]+@)[A-Za-z0-9._~!$&'()*+,;=%-]+@/,
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
    /(?<![A-Za-z0-9+.-])(?:[Hh][Tt][Tt][Pp][Ss]?|[Ww][Ss][Ss]?|[Ff][Tt][Pp]):[/\\]+[A-Za-z0-9._~!$&'()*+,;=%@-]*:(?![*xX]+@)[A-Za-z0-9._~!$&'()*+,;=%-]+@/,
  ],
];

/**
 * The bytes `encoded` (base64 or base64url, padded or not) stands for, one character per byte, or
 * `null`. A length no base64 can have is refused before `atob`, which would throw: an exception
 * per candidate costs microseconds, and a text can hold thousands of candidates.
 */
function decodeBase64(encoded: string): string | null {
  if (encoded.length % 4 === 1) return null;
  try {
    return atob(encoded.replaceAll('-', '+').replaceAll('_', '/'));
  } catch {
    return null;
  }
}

// Strict UTF-8: a decoded credential that is not UTF-8 is not one.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The UTF-8 text of `bytes` (one character per byte, as `decodeBase64` gives them), or `null`. */
function decodeUtf8(bytes: string): string | null {
  const array = new Uint8Array(bytes.length);
  for (let index = 0; index < bytes.length; index++) array[index] = bytes.charCodeAt(index);
  try {
    return UTF8.decode(array);
  } catch {
    return null;
  }
}

// A signed token (JWS compact serialization, RFC 7515 §7.1): header and claims both base64url of
// a JSON object (`eyJ`), dot-separated.
const SIGNED_TOKEN = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\./;

/**
 * Whether `text` holds a JSON Web Token: signed (JWS), or encrypted (JWE: Auth.js/NextAuth session
 * tokens, encrypted access tokens), whose claims are not readable, so only its header tells it
 * from other dotted text (`isEncryptedToken`).
 */
function isJsonWebToken(text: string): boolean {
  return SIGNED_TOKEN.test(text) || isEncryptedToken(text);
}

// The five parts of a JWE compact serialization (RFC 7516 §7.1): the header (base64url JSON,
// `eyJ`), the encrypted key (empty for `dir` and `ECDH-ES`), the initialization vector, the
// ciphertext and the authentication tag. Every part's class excludes the dot, so a match is
// tried only at the start of a run (the lookbehind) and reads at most five parts from there.
const ENCRYPTED_TOKEN = /(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,})\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{8,}/g;

/**
 * Whether `text` holds a JWE compact serialization: five parts whose header decodes to a JSON
 * object naming its key management (`alg`) and content encryption (`enc`) algorithms, as every
 * JWE header does (RFC 7516 §4.1.1-2) and no other dotted text's first part does. The names are
 * looked for in the header's bytes first (ASCII bytes stand for themselves in UTF-8), so a
 * candidate without them, and without a reverse solidus that could escape them, costs no decoding
 * and no parse.
 */
function isEncryptedToken(text: string): boolean {
  ENCRYPTED_TOKEN.lastIndex = 0;
  for (let match = ENCRYPTED_TOKEN.exec(text); match !== null; match = ENCRYPTED_TOKEN.exec(text)) {
    const bytes = decodeBase64(match[1] as string);
    // A name may also be written with escapes (`"\u0065nc"`), which JSON.parse, as a JOSE
    // library does, reads as the same name: a header holding a reverse solidus is always parsed.
    if (bytes === null || ((!bytes.includes('"enc"') || !bytes.includes('"alg"')) && !bytes.includes('\\'))) continue;
    const header = decodeUtf8(bytes);
    if (header === null) continue;
    // The header starts with `{"` (`eyJ`): whatever parses is an object.
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(header) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof fields['alg'] === 'string' && typeof fields['enc'] === 'string') return true;
  }
  return false;
}

// `Basic ` and base64 of `user:password` (RFC 7617), at least 8 characters: decoded, it must be
// UTF-8 (RFC 7617 §2.1's charset; a user or password beyond ASCII, `jürgen:hunter22`, is found)
// with a colon and no control character (§2: neither part may hold one), which prose after the
// word "Basic" practically never is. The colon is looked for in the bytes first (no UTF-8
// sequence holds the byte of an ASCII character but that character), and the check is a scan,
// not a pattern with two unbounded runs around a colon (quadratic: a colon run ending in a
// control character measured 1 s for 64 KB).
const BASIC = /(?<![A-Za-z0-9])[Bb][Aa][Ss][Ii][Cc] +([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g;
const CONTROL = /\p{Cc}/u;

function isBasicCredential(text: string): boolean {
  BASIC.lastIndex = 0;
  for (let match = BASIC.exec(text); match !== null; match = BASIC.exec(text)) {
    const bytes = decodeBase64(match[1] as string);
    if (bytes === null || !bytes.includes(':')) continue;
    const decoded = decodeUtf8(bytes);
    if (decoded !== null && !CONTROL.test(decoded)) return true;
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
    } else {
      const decide = form[2];
      if (typeof decide === 'function' ? decide(text) : decide.test(text)) return form[0];
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
