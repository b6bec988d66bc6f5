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

// A PEM or OpenSSH private key, or a PGP private key block: its first line
// (`-----BEGIN RSA PRIVATE KEY-----`, `-----BEGIN PGP PRIVATE KEY BLOCK-----`, ...).
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;

// Base64 of `-----BEGIN ` wherever it starts in the encoded bytes, from the first boundary of a
// 4-character group (3 bytes) inside it, where `LS0t` encodes `---`: a group starting at its first
// dash encodes `-----BEGIN` (`LS0tLS1CRUdJTi`); one starting at its third or second dash, `---BEGIN `
// or `----BEGIN` after the group holding the first dashes. One literal prefix, not three
// alternatives: the pre-check tries every alternative at every position of every tool output
// (three separate anchors cost about 15% more there).
const ENCODED_PEM_ANCHOR = 'LS0t(?:LS1CRUdJTi|QkVHSU4g|LUJFR0lOI)';

// Each form starts where no character before it could continue the same run (a lookbehind), so
// a match is tried at most once per run and every form is linear in the text: a form free to start
// at each character of a long run rescans the rest of the run from each one (quadratic; a 64 K run
// of letters after a `://` measured 4 s). Each form comes with its anchor: a literal (or a
// fixed-length run of a class) that every match of the form contains.
const FORMS: readonly (readonly [CredentialValueKind, string, RegExp | ((text: string) => boolean)])[] = [
  // PEM and OpenSSH private keys, PGP private key blocks (`-----BEGIN RSA PRIVATE KEY-----`, ...).
  ['private_key', '-----BEGIN ', PRIVATE_KEY],
  // The same key file base64-encoded, as Kubernetes Secret data, Helm values and many vault APIs
  // return it (`isEncodedPrivateKey`).
  ['private_key', ENCODED_PEM_ANCHOR, isEncodedPrivateKey],
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
  // Project, service-account, admin and `sk-None-` keys (a user key issued outside any project),
  // and the legacy form around `T3BlbkFJ` (base64 of `OpenAI`).
  [
    'openai_api_key',
    'sk-(?:proj|svcacct|admin|None)-|T3BlbkFJ',
    /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})/,
  ],
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
  // string or a URL with a password in it; not a masked one (`scott:***@`, `deploy:xxxxxx@`) nor a
  // placeholder in angle brackets (`admin:<db_password>@`, as connection-string templates write
  // it). Each slash may be escaped (`postgres:\/\/admin:pw@db`): JSON writers that escape `/`
  // (PHP's `json_encode` by default) write URLs so, and a reader unescapes them without effort.
  // The user and the password take RFC 3986's unreserved and sub-delimiter characters, and `^`,
  // `` ` ``, `<` and `>`, which a URL parser reads as part of them (percent-encoding them). Not a
  // colon, brackets, braces or `|`: they would also join a port to a later e-mail address in
  // ordinary text (`http://host:8080,10:30,bob@example.com`, `http://localhost:3000|foo@example.com`),
  // and a false match refuses the whole tool output. A password holding them is not found. For the
  // same reason a password of digits followed by `<`, `>` or `` ` `` is not found either: that is a
  // port followed by markup (`http://host:8080<br>bob@example.com`, `<http://host:8080>,<bob@...>`).
  // The user may hold an unencoded `@` (an e-mail login, `smtp://alice@example.com:pw@host`): a URL
  // parser ends the user information at its last `@` and the user at its first colon, so the
  // password it reads starts where this match's does and holds at least what the match holds (up
  // to the first `@`). The anchor accepts each reverse solidus doubled, as a JSON text writes it.
  [
    'url_credentials',
    ':\\\\{0,2}/\\\\{0,2}/',
    /(?<=[A-Za-z0-9+.-]):(?:\\?\/){2}[A-Za-z0-9._~!$&'()*+,;=%@^`<>-]*:(?![*xX]+@|<[A-Za-z0-9._~!$&'()*+,;=%^`-]*>@|[0-9]+[<>`])[A-Za-z0-9._~!$&'()*+,;=%^`<>-]+@/,
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
    /(?<![A-Za-z0-9+.-])(?:[Hh][Tt][Tt][Pp][Ss]?|[Ww][Ss][Ss]?|[Ff][Tt][Pp]):[/\\]+[A-Za-z0-9._~!$&'()*+,;=%@^`<>-]*:(?![*xX]+@|<[A-Za-z0-9._~!$&'()*+,;=%^`-]*>@|[0-9]+[<>`])[A-Za-z0-9._~!$&'()*+,;=%^`<>-]+@/,
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
    const header = match[1] as string;
    // The next candidate may start at any later part of this one: dotted text before a token
    // (`eyJub3RoaW5nIjoxfQ.x.AAAAAAAAAA.b.` and then a JWE) makes a candidate whose fifth part is
    // the token's header, and a search resuming after the whole match never tried the token. It
    // resumes after the header instead. Still linear: a candidate starts only where a run starts
    // and reads at most five runs, so each run is read by at most five candidates, and each
    // header is decoded once, by the candidate it starts.
    ENCRYPTED_TOKEN.lastIndex = match.index + header.length;
    const bytes = decodeBase64(header);
    // A name may also be written with escapes (`"\u0065nc"`), which JSON.parse, as a JOSE
    // library does, reads as the same name: a header holding a reverse solidus is always parsed.
    if (bytes === null || ((!bytes.includes('"enc"') || !bytes.includes('"alg"')) && !bytes.includes('\\'))) continue;
    const headerText = decodeUtf8(bytes);
    if (headerText === null) continue;
    // The header starts with `{"` (`eyJ`): whatever parses is an object.
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(headerText) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof fields['alg'] === 'string' && typeof fields['enc'] === 'string') return true;
  }
  return false;
}

// `ENCODED_PEM_ANCHOR`, with a group for the two forms whose first dashes are encoded in the 4
// characters before it.
const ENCODED_PEM = /LS0t(?:LS1CRUdJTi|(QkVHSU4g|LUJFR0lOI))/g;
// A key file's first line fits in the first 76 characters of its base64 (57 bytes, a MIME line):
// the longest header in use, `-----BEGIN ENCRYPTED PRIVATE KEY-----`, is 37 bytes.
const ENCODED_PEM_PREFIX = /[A-Za-z0-9+/_-]{0,76}/y;
const BASE64_GROUP = /^[A-Za-z0-9+/_-]{4}$/;

/**
 * Whether `text` holds a private key file encoded in base64 (a Kubernetes Secret's
 * `tls.key: LS0tLS1CRUdJTi...`, `client-key-data` in a kubeconfig, a key file inside a base64
 * JSON document): the first 76 characters from the group where the header starts decode to a
 * private key header (`PRIVATE_KEY`). Only that bounded prefix is decoded, so each candidate costs
 * the same whatever the length of its run; a certificate or public key
 * (`LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t`) is decoded and not found. A header split across lines
 * of a wrapped encoding is not found.
 */
function isEncodedPrivateKey(text: string): boolean {
  ENCODED_PEM.lastIndex = 0;
  for (let match = ENCODED_PEM.exec(text); match !== null; match = ENCODED_PEM.exec(text)) {
    const start = match[1] === undefined ? match.index : match.index - 4;
    if (start < 0 || (start < match.index && !BASE64_GROUP.test(text.slice(start, match.index)))) continue;
    ENCODED_PEM_PREFIX.lastIndex = start;
    const prefix = (ENCODED_PEM_PREFIX.exec(text) as RegExpExecArray)[0];
    // Whole groups only: a partial one is a length `decodeBase64` refuses or a byte cut short.
    const bytes = decodeBase64(prefix.slice(0, prefix.length - (prefix.length % 4)));
    if (bytes !== null && PRIVATE_KEY.test(bytes)) return true;
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
 * The anchors match printable ASCII without `"`, and a reverse solidus only where they also match
 * it doubled (the URL anchor takes none, one or two before each slash): wherever a form occurs in a
 * string, its anchor occurs in the string's JSON text (only `"`, `\\` and controls are escaped
 * there, `\\` as `\\\\`). One pass of this over a whole canonical text rules most outputs out at
 * once (about 3 µs per KB of text without any: irregexp tries each alternative at each position).
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
