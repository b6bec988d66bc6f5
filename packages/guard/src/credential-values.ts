/**
 * Credentials recognised by their form alone, inside any string: the values the sensitive-key scan
 * cannot see because they sit under an ordinary key (`"note": "use key AKIA..."`, a knowledge-base
 * article quoting a private key). Forms an issuer fixed (a distinctive prefix or header and enough
 * random characters after it), an HTTP `Bearer`/`Basic`/`Token`/`Bot` credential, a session in a
 * `Cookie` or `Set-Cookie` header, a URL with a
 * password in it and a connection string with a key or password in it: shapes business text does
 * not take, so a match is a leak, not a guess. Generic high-entropy strings (hex digests, UUIDs,
 * order numbers) are never flagged. Text is matched as it is, without Unicode normalization: a
 * token broken up by invisible characters is not found.
 */
export type CredentialValueKind =
  | 'private_key'
  | 'jwt'
  | 'aws_access_key_id'
  | 'github_token'
  | 'gitlab_token'
  | 'slack_token'
  | 'stripe_secret_key'
  | 'webhook_signing_secret'
  | 'openai_api_key'
  | 'anthropic_api_key'
  | 'google_api_key'
  | 'google_oauth_token'
  | 'npm_token'
  | 'huggingface_token'
  | 'pypi_token'
  | 'sendgrid_api_key'
  | 'authorization_header'
  | 'cookie_header'
  | 'connection_string'
  | 'url_credentials';

// A PEM or OpenSSH private key, or a PGP private key block: its first line
// (`-----BEGIN RSA PRIVATE KEY-----`, `-----BEGIN PGP PRIVATE KEY BLOCK-----`, ...). The words
// before `PRIVATE KEY` are one run of a class, not a repeated group: V8 keeps a backtrack entry
// per repetition of a group, and a few million of them (`-----BEGIN A A A ...`) overflow its
// stack (`RangeError`).
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9 ]* )?PRIVATE KEY(?: BLOCK)?-----/;

// Base64 of `-----BEGIN ` wherever it starts in the encoded bytes, from the first boundary of a
// 4-character group (3 bytes) inside it, where `LS0t` encodes `---`: a group starting at its first
// dash encodes `-----BEGIN` (`LS0tLS1CRUdJTi`); one starting at its third or second dash, `---BEGIN `
// or `----BEGIN` after the group holding the first dashes. One literal prefix, not three
// alternatives: the pre-check tries every alternative at every position of every tool output
// (three separate anchors cost about 15% more there).
const ENCODED_PEM_ANCHOR = 'LS0t(?:LS1CRUdJTi|QkVHSU4g|LUJFR0lOI)';

// Other private key files, by their first line: PuTTY's `.ppk` (`PuTTY-User-Key-File-3:
// ssh-ed25519`, the key type after the colon, so prose naming the header is not found) and
// SSH Communications' format (`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`, RFC 4716 framing).
const KEY_FILE_HEADER = /PuTTY-User-Key-File-[0-9]+: *(?:ssh|ecdsa)-|---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----/;

// The base64url of a JSON object's first bytes, as every JOSE header starts (`isJsonWebToken`):
// `{"` and a name (`eyJ`, or `eyI`/`eyK`/`eyL` for a name starting below `@` or beyond ASCII),
// or `{` and white space (a space, tab, line feed or carriage return: `eyA`, `ewk`, `ewo`, `ew0`)
// and then white space or `"` (the fourth character `g`, `i`, `J`, `K` or `N`). What else JSON
// allows after `{` (`}`) makes an empty object, which names no algorithm.
const JOSE_HEADER_ANCHOR = 'e(?:y[IJKL]|(?:yA|w[0ko])[giJKN])[A-Za-z0-9_-]{8}';

// `Bearer` (RFC 6750), the scheme in any case, then spaces, tabs or no-break spaces (U+00A0, as
// pasted from a web page), and a token of 20 characters or more with a digit among them (prose
// after "Bearer" has none: `Bearer YOUR_ACCESS_TOKEN_HERE`). The anchor takes the separator as
// the JSON text writes it too (a tab as `\t`), one class run wide so it never backtracks through a
// group; it starts only where `Bearer` does, so its run is read once.
const BEARER_ANCHOR = '[Bb][Ee][Aa][Rr][Ee][Rr][ \\t\\u00a0\\\\][ \\t\\u00a0\\\\t]*[A-Za-z0-9._~+/-]{20}';
const BEARER = /(?<![A-Za-z0-9])[Bb][Ee][Aa][Rr][Ee][Rr][ \t\u00a0]+(?=[A-Za-z._~+/-]*[0-9])[A-Za-z0-9._~+/-]{20}/;

// `Authorization: Token <token>` (Django REST framework, GitHub's classic `token`) and
// `Authorization: Bot <token>` (Discord): those scheme names are ordinary words, so only in the
// header form, `Authorization` (any case) and a colon, possibly quoted as a header map writes it
// (`{"Authorization": "Token ..."}`, `'Authorization': 'Bot ...'`), then a token as for `Bearer`
// (20 characters or more, a digit among them). A quote may be escaped (`{\"Authorization\": ...}`,
// a header map inside JSON inside the text); the anchor takes it escaped once more, as the JSON
// text writes it.
const AUTHORIZATION_SCHEME_ANCHOR =
  '[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn](?:\\\\{0,3}["\'])? {0,4}: {0,4}(?:\\\\{0,3}["\'])?(?:[Tt][Oo][Kk][Ee][Nn]|[Bb][Oo][Tt])';
const AUTHORIZATION_SCHEME =
  /(?<![A-Za-z0-9_])[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn](?:\\?["'])? {0,4}: {0,4}(?:\\?["'])?(?:[Tt][Oo][Kk][Ee][Nn]|[Bb][Oo][Tt])[ \t\u00a0]+(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{20}/;

// A session in a `Cookie` or `Set-Cookie` header (RFC 6265) quoted in text (`isCookieSession`): the
// header name in any case, possibly quoted as a header map writes it (`{"Cookie": "sid=..."}`, a
// quote escaped once more inside JSON text), possibly after an escaped line break (`\r\nCookie:`
// in a logged request), a colon, and among the cookies that follow on that line (up to
// `COOKIE_LINE` characters, split at `;` and `,`) one whose name names a session or a credential
// (`sessionid`, `PHPSESSID`, `connect.sid`, `_app_session`, `auth_token`, `remember_user_token`,
// `.AspNetCore.Identity.Application`, `wordpress_logged_in_...`, `li_at`: `sess`, `sid`, `auth`,
// `token`, `jwt`, `remember`, `identity`, `aspnetcore` or `logged_in` in it, any case; not an
// analytics cookie's, `_hjSessionUser_...`, `s_sess`, `session_start`) with a value of 16
// characters or more of cookie and percent-encoding characters (a quote around it allowed) holding
// a digit or both letter cases. Analytics and preference cookies (`_ga=GA1.2...`, `_fbp`,
// `theme=dark`), masked values (`xxxx`, `****`), prose naming the header and placeholders
// (`sid=<session-id>`) are not found. Spec 000 names cookies among the credentials rejected
// recursively.
const COOKIE_ANCHOR = '[Cc][Oo][Oo][Kk][Ii][Ee](?:\\\\{0,3}["\'])? {0,4}:';
// The header's name: not inside a word, unless the letter before is an escape's (`\nCookie:`).
const COOKIE_HEADER = /(?<!(?<!\\)[A-Za-z0-9_])[Cc][Oo][Oo][Kk][Ii][Ee](?:\\?["'])? {0,4}:/g;
const COOKIE_LINE = 8192;
// What may stand between the colon and the first cookie, up to 64 of them (a bounded group): white
// space, line breaks (escaped too) and a list's bracket and quote, as a pretty-printed header map
// writes `"set-cookie": [\n  "connect.sid=..."`.
const COOKIE_LEAD_RUN = /(?:[\s\[(]|\\[rnt]|\\?["']){0,64}/y;
const COOKIE_LINE_END = /[\r\n]|\\[rn]/;
const COOKIE_PAIR = /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-][A-Za-z0-9_.-]*)[ \t]?=[ \t]?\\?["']?([A-Za-z0-9%._~+/=:-]{16}[A-Za-z0-9%._~+/=:-]*)/g;
const SESSION_NAME = /sess|sid|auth|token|jwt|remember|identity|aspnetcore|logged_?in|^li_at$/i;
// Analytics cookies whose names hold one of those words: Hotjar's `_hjSession...`, Adobe's
// `s_sess`, a `session_start` time.
const ANALYTICS_NAME = /^(?:_hj|_ga|_gid|_fb|__utm|s_sess$|s_pers$|session_?start)/i;
const COOKIE_MASK = /[xX*]{4}|\.\.\./;

function isCookieSession(text: string): boolean {
  COOKIE_HEADER.lastIndex = 0;
  for (let header = COOKIE_HEADER.exec(text); header !== null; header = COOKIE_HEADER.exec(text)) {
    COOKIE_LEAD_RUN.lastIndex = header.index + header[0].length;
    COOKIE_LEAD_RUN.test(text); // matches always (even nothing), so it sets `lastIndex`
    const start = COOKIE_LEAD_RUN.lastIndex;
    let line = text.slice(start, start + COOKIE_LINE);
    const end = COOKIE_LINE_END.exec(line);
    if (end !== null) line = line.slice(0, end.index);
    COOKIE_PAIR.lastIndex = 0;
    for (let pair = COOKIE_PAIR.exec(line); pair !== null; pair = COOKIE_PAIR.exec(line)) {
      const [, name, value] = pair as unknown as [string, string, string];
      if (SESSION_NAME.test(name) && !ANALYTICS_NAME.test(name) && !COOKIE_MASK.test(value) && (/[0-9]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value)))) return true;
    }
    // The next header is looked for after this one's line: each character is read by one line.
    COOKIE_HEADER.lastIndex = Math.max(COOKIE_HEADER.lastIndex, start + line.length);
  }
  return false;
}

// Every open-ended run is written as its minimum and then `*` (`[...]{20}[...]*`), or cut at its
// minimum where nothing follows it (`[...]{20}`): V8 keeps a backtrack entry per character of a
// counted run (`{20,}`) and throws `RangeError` from about 5.3 million of them, where a starred
// class keeps none. Each form starts where no character before it could continue the same run (a
// lookbehind), so a match is tried at most once per run and every form is linear in the text: a
// form free to start at each character of a long run rescans the rest of the run from each one
// (quadratic; a 64 K run of letters after a `://` measured 4 s). Each form comes with its anchor:
// a literal (or a fixed-length run of a class) that every match of the form contains.
// A form whose kind is the last resort: `cookie_header`, whose value is often itself a form with
// a kind of its own (an Auth.js session cookie is a `jwt`). A text where it matches is reported so
// only when no other form matches anywhere in it.
const LAST_RESORT: CredentialValueKind = 'cookie_header';

const FORMS: readonly (readonly [CredentialValueKind, string, RegExp | ((text: string) => boolean)])[] = [
  // PEM and OpenSSH private keys, PGP private key blocks (`-----BEGIN RSA PRIVATE KEY-----`, ...).
  ['private_key', '-----BEGIN ', PRIVATE_KEY],
  // The same key file base64-encoded, as Kubernetes Secret data, Helm values and many vault APIs
  // return it (`isEncodedPrivateKey`).
  ['private_key', ENCODED_PEM_ANCHOR, isEncodedPrivateKey],
  ['private_key', '---- BEGIN SSH2 |PuTTY-User-Key-File-', KEY_FILE_HEADER],
  // A private JSON Web Key written as text (`isPrivateJsonWebKey`); the anchor takes the quote after
  // `kty` escaped once or twice more, as the JSON text writes it.
  ['private_key', 'kty\\\\{0,3}"', isPrivateJsonWebKey],
  // A JSON Web Token (RFC 7519), signed or encrypted (`isJsonWebToken`); the anchor is its
  // header's first characters.
  ['jwt', JOSE_HEADER_ANCHOR, isJsonWebToken],
  ['aws_access_key_id', 'A[KS]IA', /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/],
  ['github_token', 'gh[pousr]_|github_pat_', /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22})/],
  // A GitLab personal access token: `glpat-` and 20 characters or more.
  ['gitlab_token', 'glpat-', /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20}/],
  // Bot, user, app, client, refresh and configuration tokens: `xoxb-` and a numeric team or app
  // id; a browser session's `d` cookie (`xoxd-`, percent-encoded base64); an app-level token; an
  // incoming-webhook URL.
  [
    'slack_token',
    'xox[abcdprse]-|xapp-|hooks\\.slack\\.com',
    /(?<![A-Za-z0-9-])(?:xox[abcprse]-[0-9]+-[A-Za-z0-9-]{8}|xoxd-[A-Za-z0-9%+/=_-]{30}|xapp-[0-9]+-[A-Za-z0-9-]{8})|hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]{16}/,
  ],
  ['stripe_secret_key', 'k_(?:live|test)_', /(?<![A-Za-z0-9_])[rs]k_(?:live|test)_[A-Za-z0-9]{16}/],
  // A webhook signing secret, Stripe's or Svix's (`whsec_` and base64): whoever holds it can forge
  // the events a receiver trusts.
  ['webhook_signing_secret', 'whsec_', /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/=]{24}/],
  ['anthropic_api_key', 'sk-ant-', /(?<![A-Za-z0-9_-])sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20}/],
  // Project, service-account, admin and `sk-None-` keys (a user key issued outside any project),
  // and the legacy form around `T3BlbkFJ` (base64 of `OpenAI`).
  [
    'openai_api_key',
    'sk-(?:proj|svcacct|admin|None)-|T3BlbkFJ',
    /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})/,
  ],
  ['google_api_key', 'AIza', /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/],
  // A Google OAuth access token (`ya29.` and 20 characters or more) or refresh token (`1//0` and
  // 30 or more), its slashes possibly JSON-escaped (`1\/\/0`, as PHP writes them).
  [
    'google_oauth_token',
    'ya29\\.|1\\\\{0,2}/\\\\{0,2}/0',
    /(?<![A-Za-z0-9_.-])ya29\.[A-Za-z0-9_-]{20}|(?<![A-Za-z0-9_./-])1(?:\\?\/){2}0[A-Za-z0-9_-]{30}/,
  ],
  // An npm access token: `npm_` and exactly 36 letters and digits (`npm_config_cache` has an
  // underscore in the run).
  ['npm_token', 'npm_', /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/],
  // A Hugging Face token: `hf_` and 30 letters or digits or more (34 as issued; `hf_ratio` has 5,
  // `hf_model_name` an underscore in the run). Issued tokens are letters only, but secret scanners
  // disagree, and a digit costs nothing in false positives.
  ['huggingface_token', 'hf_', /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30}/],
  // A PyPI or TestPyPI API token: `pypi-` and a macaroon whose base64 starts `AgE` (version 2,
  // then the location, `pypi.org` or `test.pypi.org`), 50 characters or more after it.
  ['pypi_token', 'pypi-AgE', /(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{50}/],
  // A SendGrid API key: `SG.`, 22 characters, `.`, 43 characters (`SG.2024.report` is not one).
  ['sendgrid_api_key', 'SG\\.[A-Za-z0-9_-]{22}\\.', /(?<![A-Za-z0-9_.-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/],
  ['authorization_header', BEARER_ANCHOR, BEARER],
  ['authorization_header', AUTHORIZATION_SCHEME_ANCHOR, AUTHORIZATION_SCHEME],
  ['cookie_header', COOKIE_ANCHOR, isCookieSession],
  // An Azure Storage account key or a Service Bus, Event Hubs or IoT Hub shared access key in its
  // connection string: `AccountKey=` or `SharedAccessKey=` and 40 base64 characters or more (the
  // keys are 88 and 44); a placeholder (`AccountKey=<key>`) is not found.
  ['connection_string', 'AccountKey=|SharedAccessKey=', /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40}/],
  // A password in a `key=value` connection string (`isConnectionStringPassword`).
  ['connection_string', '[Pp](?:[Aa][Ss][Ss][Ww][Oo][Rr][Dd]|[Ww][Dd]) *=', isConnectionStringPassword],
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

// A signed token (JWS compact serialization, RFC 7515 §7.1) in its common spelling: header and
// claims both base64url of a JSON object starting `{"` (`eyJ`), dot-separated. Found without
// decoding; other spellings are decoded (`SIGNED_TOKEN_CANDIDATE`).
const SIGNED_TOKEN = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8}[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]{8}[A-Za-z0-9_-]*\./;

// A header (base64url of `{` and anything, `e` and `w` or `y`: see `JOSE_HEADER_ANCHOR`), a dot,
// a non-empty payload and a dot: the JWS compact form whichever way its JSON is spaced
// (`{ "alg"` gives `eyAi`, `{\n` gives `ewog`) and whatever its payload is. Each part's class
// excludes the dot, so a candidate starts only where a run starts and reads two runs.
const SIGNED_TOKEN_CANDIDATE = /(?<![A-Za-z0-9_-])(e[wy][A-Za-z0-9_-]{8}[A-Za-z0-9_-]*)\.([A-Za-z0-9_-]+)\./g;

/**
 * Whether `text` holds a JSON Web Token: signed (JWS: `SIGNED_TOKEN`, or a header that decodes to
 * a JSON object with a string `alg`, as every JWS header has (RFC 7515 §4.1.1), and a payload
 * that is base64url), or encrypted (JWE: Auth.js/NextAuth session tokens, encrypted access
 * tokens), whose claims are not readable, so only its header tells it from other dotted text
 * (`isEncryptedToken`).
 */
function isJsonWebToken(text: string): boolean {
  if (SIGNED_TOKEN.test(text)) return true;
  SIGNED_TOKEN_CANDIDATE.lastIndex = 0;
  for (let match = SIGNED_TOKEN_CANDIDATE.exec(text); match !== null; match = SIGNED_TOKEN_CANDIDATE.exec(text)) {
    const header = match[1] as string;
    // The payload may be the next token's header (`x.y.` before a token makes a candidate whose
    // payload is the token's header): resume after this header. Still linear: each run is read by
    // at most two candidates, the one it starts and the one before it, and decoded once as a
    // header and once as a payload.
    SIGNED_TOKEN_CANDIDATE.lastIndex = match.index + header.length;
    const fields = readJoseHeader(header, 'alg');
    if (fields !== null && typeof fields['alg'] === 'string' && decodeBase64(match[2] as string) !== null) return true;
  }
  return isEncryptedToken(text);
}

/**
 * The members of the JSON object `header` (base64url, starting `e` and `w` or `y`, so its first
 * byte is `{`) stands for, or `null` when it is not UTF-8 JSON. The `names` are looked for in the
 * bytes first (ASCII bytes stand for themselves in UTF-8), so a candidate without them, and
 * without a reverse solidus that could escape them, costs no decoding and no parse: a name may
 * also be written with escapes (`"\u0065nc"`), which JSON.parse, as a JOSE library does, reads as
 * the same name, so a header holding a reverse solidus is always parsed.
 */
function readJoseHeader(header: string, ...names: readonly string[]): Record<string, unknown> | null {
  const bytes = decodeBase64(header);
  if (bytes === null || (!names.every((name) => bytes.includes(`"${name}"`)) && !bytes.includes('\\'))) return null;
  const headerText = decodeUtf8(bytes);
  if (headerText === null) return null;
  // The first byte is `{`: whatever parses is an object.
  try {
    return JSON.parse(headerText) as Record<string, unknown>;
  } catch {
    return null;
  }
}

// The five parts of a JWE compact serialization (RFC 7516 §7.1): the header (base64url JSON, `e`
// and `w` or `y`, as for a JWS), the encrypted key (empty for `dir` and `ECDH-ES`), the
// initialization vector, the ciphertext and the authentication tag. Every part's class excludes
// the dot, so a match is tried only at the start of a run (the lookbehind) and reads at most five
// parts from there.
const ENCRYPTED_TOKEN =
  /(?<![A-Za-z0-9_-])(e[wy][A-Za-z0-9_-]{8}[A-Za-z0-9_-]*)\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{8}[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{8}/g;

/**
 * Whether `text` holds a JWE compact serialization: five parts whose header decodes to a JSON
 * object naming its key management (`alg`) and content encryption (`enc`) algorithms, as every
 * JWE header does (RFC 7516 §4.1.1-2) and no other dotted text's first part does.
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
    const fields = readJoseHeader(header, 'enc', 'alg');
    if (fields !== null && typeof fields['alg'] === 'string' && typeof fields['enc'] === 'string') return true;
  }
  return false;
}

// A JSON Web Key's `kty` member, and a member only a private or secret key has: `d`, the private
// exponent or scalar of an RSA, EC or OKP key (RFC 7518 §6.2.2.1, §6.3.2.1; RFC 8037 §2), or `k`,
// the key of a symmetric one (§6.4.1), as base64url of 16 bytes or more (22 characters). A quote
// may be escaped once (`{\"kty\":...}`, a key document inside JSON inside the text).
const JWK_TYPE = /"kty\\?"\s*:/;
const JWK_PRIVATE_MEMBER = /"[dk]\\?"\s*:\s*\\?"[A-Za-z0-9_-]{22}/;

/**
 * Whether `text` holds a private or secret JSON Web Key written as text (`{"kty":"EC", ...,
 * "d":"..."}`): a `kty` member and a `d` or `k` member with a base64url value, anywhere in the
 * text. A public key (`n` and `e`, `x` and `y`) has neither; JSON that names no `kty` is not a key.
 */
function isPrivateJsonWebKey(text: string): boolean {
  return JWK_TYPE.test(text) && JWK_PRIVATE_MEMBER.test(text);
}

// The keys of a `key=value` connection string: a password (`Password`, `Pwd`: ADO.NET, ODBC, JDBC
// and libpq spell them so, ADO.NET and ODBC in any case), or one naming where or as whom to
// connect (ADO.NET's `Server`/`Data Source`/`Address`, ODBC's `DSN`/`UID`, libpq's
// `host`/`hostaddr`/`dbname`/`user`, and their `Database`/`Initial Catalog`/`User ID`). A key
// starts at a key boundary (not after a letter, digit or `_`: `old_password=` is not one) and its
// `=` follows at once, or after spaces with spaces allowed after it too (`Password = x`); the
// value starts at once, and not with a space, a separator or a placeholder's opening character
// (`<password>`, `{pwd}`, `${DB_PASSWORD}`, `%PWD%`, `[password]`, `****`), so prose
// (`set password= in the file`) and templates are not read as values. An ODBC value quoted in
// braces (`PWD={s3cr;et}`) is taken for a placeholder and not found.
const CONNECTION_KEY =
  /(?<![A-Za-z0-9_])(?:(password|pwd)|server|data source|address|addr|network address|dsn|uid|hostaddr|host|dbname|database|initial catalog|user id|username|user)(?:=| +=(?: *))["']?(?=[^\s;"'&<>{}[\]$%*])/gi;
// A masked password (`Password=xxxxxx;`, `pwd=...`): only marks, up to the value's end.
const MASKED_VALUE = /[xX.]{1,64}(?![^\s;"'&])/y;
// How far apart the password and another key of the same connection string may be: a long ADO.NET
// string puts about 120 characters between `Server=` and `Password=`.
const CONNECTION_SPAN = 256;

/**
 * Whether `text` holds a password in a connection string: a password key with a value
 * (`CONNECTION_KEY`), not masked, and within 256 characters before or after it another key of a
 * connection string with a value: `Server=db;User Id=sa;Password=S3cret;` (ADO.NET),
 * `DSN=orders;UID=app;PWD=S3cret` (ODBC), `host=db user=app password=S3cret dbname=orders`
 * (libpq), `?user=app&password=S3cret`. A password with no such key near it (`the Wi-Fi
 * password=guest`) is not found. One pass: each key is compared with the nearest key of the other
 * kind before it.
 */
function isConnectionStringPassword(text: string): boolean {
  let lastPassword = -Infinity;
  let lastOther = -Infinity;
  CONNECTION_KEY.lastIndex = 0;
  for (let match = CONNECTION_KEY.exec(text); match !== null; match = CONNECTION_KEY.exec(text)) {
    if (match[1] === undefined) {
      if (match.index - lastPassword <= CONNECTION_SPAN) return true;
      lastOther = match.index;
      continue;
    }
    MASKED_VALUE.lastIndex = match.index + match[0].length;
    if (MASKED_VALUE.test(text)) continue;
    if (match.index - lastOther <= CONNECTION_SPAN) return true;
    lastPassword = match.index;
  }
  return false;
}

// `ENCODED_PEM_ANCHOR`, with a group for the two forms whose first dashes are encoded in the 4
// characters before it.
const ENCODED_PEM = /LS0t(?:LS1CRUdJTi|(QkVHSU4g|LUJFR0lOI))/g;
// A key file's first line fits in the first 76 characters of its base64 (57 bytes, a MIME line):
// the longest header in use, `-----BEGIN ENCRYPTED PRIVATE KEY-----`, is 37 bytes.
// Its padding too: a header whose last dashes fall in the encoding's last group is decoded whole.
const ENCODED_PEM_PREFIX = /[A-Za-z0-9+/_-]{0,76}={0,2}/y;
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
    // A prefix cut at 76 characters is whole groups. A shorter one is the end of the encoding, its
    // last group padded or not, and decodes whole; where it does not (a length of 1 mod 4, padding
    // in the wrong place), its whole groups still do.
    const padding = prefix.indexOf('=');
    const unpadded = padding === -1 ? prefix : prefix.slice(0, padding);
    const bytes = decodeBase64(prefix) ?? decodeBase64(unpadded.slice(0, unpadded.length & ~3));
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
const BASIC = /(?<![A-Za-z0-9])[Bb][Aa][Ss][Ii][Cc] +([A-Za-z0-9+/]{8}[A-Za-z0-9+/]*={0,2})(?![A-Za-z0-9+/=])/g;
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
 * The anchors match printable ASCII and U+00A0 (which both writers leave as it is), a quotation
 * mark only after an optional reverse solidus, a reverse solidus only where they also match it
 * doubled (the URL anchor takes none, one or two before each slash), and a tab only where they also
 * match `\\t` (the `Bearer` anchor): wherever a form occurs in a string, its anchor occurs in the
 * string's JSON text (only `"`, `\\` and controls are escaped there, `"` as `\\"`, `\\` as
 * `\\\\`, a tab as `\\t`). One pass of this over a whole canonical text rules most outputs out
 * at once (a few µs per KB of text without any: irregexp tries each alternative at each position).
 * Each anchor is of fixed length, or a run of one class: a repeated group would keep a backtrack
 * entry per repetition, and overflow V8's stack on a few million of them.
 */
const ANCHORS = new RegExp(ANCHOR_SOURCES.map((source) => `(?:${source})`).join('|'));
// The same with one group per form: a string is tested only against the forms whose anchor it
// holds (a link's `://` costs one form, not twenty).
const ANCHOR_GROUPS = new RegExp(ANCHOR_SOURCES.map((source) => `(${source})`).join('|'), 'g');
// `findCredentialValue` keeps one bit per anchor in a 32-bit integer.
if (ANCHOR_SOURCES.length > 32) throw new Error('credential-values: more than 32 anchors');

/**
 * The kind of a credential form found in `text` (the first anchor's that matches; `cookie_header`
 * only when no other form matches), or `null` when
 * there is none. Never throws: a form whose check throws (none does on strings up to the guard's
 * 16 Mi limits: every run is starred, never counted, so V8 keeps no backtrack entry per character)
 * is taken as found, the conservative reading of a string that could not be judged, so a caller
 * refuses it as a credential and never for another reason.
 */
export function findCredentialValue(text: string): CredentialValueKind | null {
  let tested = 0; // one bit per anchor already followed
  let lastResort: CredentialValueKind | null = null;
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
    try {
      if (form === undefined) {
        if (isBasicCredential(text)) return 'authorization_header';
      } else {
        const decide = form[2];
        if (typeof decide === 'function' ? decide(text) : decide.test(text)) {
          if (form[0] !== LAST_RESORT) return form[0];
          lastResort = form[0];
        }
      }
    } catch {
      return form === undefined ? 'authorization_header' : form[0];
    }
  }
  return lastResort;
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
