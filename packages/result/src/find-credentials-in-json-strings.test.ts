import type { JsonValue } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { copy, loadKbCases, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { rebindDigests } from './__fixtures__/rebind-digests.js';
import { findCredentialsInJsonStrings } from './find-credentials-in-json-strings.js';
import { pairValueLooksLikeSecret } from './credential-pairs.js';
import { isCredentialOutputKey, judgeOutputKey } from './judge-output-key.js';
import { sealResult, type SealResultInput } from './seal-result.js';
import { createToolRegistry, type RegisteredTool } from './tool-registry.js';
import { verifyResult } from './verify-result.js';

// The review: a downstream object with a password is refused as `JSON.stringify(obj)`; the same
// object as `JSON.stringify(JSON.stringify(obj))` (a string literal whose content is the object's
// JSON text) must be refused too. Made-up credentials, none of them live.
const downstream = { user: 'svc-billing', password: 'Tr0ub4dor&3-prod' };
const encode = (value: unknown, times: number): string => {
  let text = JSON.stringify(value);
  for (let i = 1; i < times; i++) text = JSON.stringify(text);
  return text;
};
const twice = encode(downstream, 2);

const kbSearch: RegisteredTool = (() => {
  const tool = createToolRegistry([loadToolSpecs().kbSearch]).get('kb_search');
  if (tool === undefined) throw new Error('no kb_search');
  return tool;
})();

// Both ways the function is called: with the canonical text of `data` (the pre-check decides the
// common case) and with `null` (always walks). They must agree.
function find(data: JsonValue): unknown[] {
  const text = canonicalize(data);
  if (typeof text !== 'string') throw new Error('not canonicalizable');
  const withText = findCredentialsInJsonStrings(kbSearch, data, text);
  expect(findCredentialsInJsonStrings(kbSearch, data, null)).toEqual(withText);
  return withText;
}

describe('findCredentialsInJsonStrings: JSON text of JSON text', () => {
  // Each refused before the fix? No: every one of them passed the old check (strings starting
  // with `{` or `[` only), and the password reached the model.
  const refused: [string, JsonValue, string][] = [
    ['a double-encoded object as a whole string', { text: twice }, '/data/text'],
    ["after and before JSON's whitespace", { text: `\n\t ${twice} ` }, '/data/text'],
    // The content of the literal starts with a newline: in the canonical text of `data` that is
    // `"\"\\n{`, which only the escaped quote after the opening one gives away to the pre-check.
    ['a double-encoded object with a newline first', { text: JSON.stringify(`\n${JSON.stringify(downstream)}`) }, '/data/text'],
    ['in a member of an object of data', { outer: { inner: twice } }, '/data/outer/inner'],
    ['in an array of data', { items: ['ok', twice] }, '/data/items/1'],
    ['in a member of the JSON text of a string', { text: JSON.stringify({ status: 200, body: twice }) }, '/data/text'],
    ['in an array in the JSON text of a string', { text: JSON.stringify([1, { body: [twice] }]) }, '/data/text'],
    ['a double-encoded array of objects', { text: encode([{ id: 1 }, { client_secret: 'q9Zr7Kp2Lm4Nx8Vb' }], 2) }, '/data/text'],
    // Each unwrapped literal is one of the four levels.
    ['triple-encoded (level 3)', { text: encode(downstream, 3) }, '/data/text'],
    ['quadruple-encoded (level 4)', { text: encode(downstream, 4) }, '/data/text'],
    ['a member at level 2 holding a triple-encoded object', { text: JSON.stringify({ body: encode(downstream, 3) }) }, '/data/text'],
    // The review: the literal's content opens with a `\u` escape of `{`, `[`, `"` or whitespace.
    ['a double-encoded object opening with \\u007b', { text: `"\\u007b${twice.slice(2)}` }, '/data/text'],
    ['a double-encoded object opening with \\u007B', { text: `"\\u007B${twice.slice(2)}` }, '/data/text'],
    ['a double-encoded object after an escaped space \\u0020', { text: `"\\u0020${twice.slice(1)}` }, '/data/text'],
    ['a double-encoded array opening with \\u005b', { text: `"\\u005b${JSON.stringify(JSON.stringify([{ password: 'Tr0ub4dor&3-prod' }])).slice(2)}` }, '/data/text'],
    ['a triple-encoded object opening with \\u0022', { text: `"\\u0022${encode(downstream, 3).slice(3)}` }, '/data/text'],
    [
      'behind a 1 MB member',
      { text: JSON.stringify(JSON.stringify({ pad: 'p'.repeat(1 << 20), password: 'Tr0ub4dor&3-prod' })) },
      '/data/text',
    ],
  ];
  it.each(refused)('refuses a credential in JSON text of JSON text: %s', (_name, data, path) => {
    expect(find(data)).toEqual([{ rule: 'credential_value', path }]);
  });

  it('stops at the cap: past four levels the text is not read, so the work stays within four passes', () => {
    expect(find({ text: encode(downstream, 5) })).toEqual([]);
    expect(find({ text: JSON.stringify({ body: encode(downstream, 4) }) })).toEqual([]);
  });

  it('passes a double-encoded object without a credential or with a placeholder', () => {
    for (const value of [
      { user: 'svc-billing', region: 'eu-west-1', tenant: 'cedar-holdings' },
      { user: 'svc-billing', password: '<token>' },
      { headers: { Authorization: 'Bearer <token>' }, api_key: 'YOUR_API_KEY', secret: '...' },
      { password: 'short' },
    ]) {
      for (const times of [2, 3]) expect(find({ text: encode(value, times) }), encode(value, times)).toEqual([]);
    }
    // A string literal whose content is a string, a number or prose.
    for (const text of ['"plain words"', '"12345678"', '"\\"Tr0ub4dor&3-prod\\""', '""', '"null"']) {
      expect(find({ text }), text).toEqual([]);
    }
  });

  it('passes prose that starts with a quote character, without throwing', () => {
    for (const text of [
      '"Hello," she said.',
      '"Hello," she said, "the password is Tr0ub4dor&3-prod."',
      '"',
      '"\\',
      '"unterminated {"password":"Tr0ub4dor&3-prod"}',
      `"${JSON.stringify(downstream)}"`,
      ` "x" ${twice}`,
      `${twice}.`,
      `'${JSON.stringify(downstream)}'`,
    ]) {
      expect(find({ text }), text).toEqual([]);
    }
  });

  it('reads a 1 MB string of nested quotes with parsing bounded by four levels of it', () => {
    let nested = 'x';
    while (nested.length < 1 << 20) nested = JSON.stringify(nested);
    const long = [
      nested,
      '"'.repeat(1 << 20),
      '"\\'.repeat(1 << 19),
      `"${'\\"'.repeat(1 << 19)}"`,
      `${' '.repeat(1 << 20)}"`,
      `"${' '.repeat(1 << 20)}`,
      `${'\t'.repeat(1 << 20)}x`,
    ];
    // Counted, not timed (a loaded runner took 8 times as long): the text parsed is bounded by
    // four levels of each input (each level strictly shorter), and prose is never parsed.
    const parse = vi.spyOn(JSON, 'parse');
    try {
      for (const text of long) {
        parse.mockClear();
        expect(find({ text })).toEqual([]);
        const parsed = parse.mock.calls.reduce((sum, [argument]) => sum + String(argument).length, 0);
        // `find` calls the function twice (with and without the canonical text).
        expect(parsed).toBeLessThanOrEqual(2 * 4 * text.length);
      }
      parse.mockClear();
      // Many strings that start with a quote and are prose: rejected without a parse.
      expect(find({ items: Array.from({ length: 20_000 }, (_, i) => `"Hello," she said, ${i}.`) })).toEqual([]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('reads quoted dialogue (a string that starts and ends with a quote) without parsing it', () => {
    const dialogue = Array.from({ length: 2_000 }, (_, i) => `"Yes," he said. "No, ${i}."`);
    // A failed JSON.parse costs about 12 µs a string: the scan decides without one (counted, not
    // timed, so a loaded machine cannot fail it).
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(find({ items: dialogue })).toEqual([]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // Still found: a literal whose content opens an object after escaped whitespace.
    expect(find({ text: JSON.stringify(`\n\t ${JSON.stringify({ password: 'Tr0ub4dor&3-prod' })}`) })).toEqual([
      { rule: 'credential_value', path: '/data/text' },
    ]);
  });

  it('refuses a secret holding a placeholder character or word: a placeholder is the whole value (review 1, F1)', () => {
    // Each passed before: `<`, `>`, `...`, `***`, `xxxx`, `sample` anywhere in the value made it a
    // placeholder, and the password reached the model.
    for (const password of ['Tq9#vL2m>Rz8', 'Tq9#vL2m<Rz8', 'Tq9...vL2mRz8', 'Tq9***vL2mRz8', 'qXxXx9vL2mRz8', 'Sample-9vL2mRz8', '$Tq9#vL2mRz8)', 'Tq9…vL2mRz8', 'yourTq9#vL2m', 'Dummy#9vL2mRz8', '<Tq9#vL2m!Rz8>x']) {
      expect(find({ text: JSON.stringify({ username: 'svc-billing', password }) }), password).toEqual([{ rule: 'credential_value', path: '/data/text' }]);
    }
    // What documentation writes instead of one still passes, each as the whole value.
    for (const placeholder of [
      '<your client secret>',
      'Bearer <token>',
      'Basic <base64(client_id:client_secret)>',
      '${DB_PASSWORD}',
      '${{ secrets.API_KEY }}',
      '{{ api_key }}',
      '%PASSWORD%',
      '[REDACTED]',
      '(not shown)',
      '********',
      'xxxx-xxxx-xxxx-xxxx',
      '…'.repeat(8),
      'YOUR_API_KEY_HERE',
      'your-client-secret',
      'example-password',
      'sample_token',
      'dummy secret value',
      'changeme123',
      'change_me',
      'REDACTED',
      'placeholder',
    ]) {
      expect(find({ text: JSON.stringify({ username: 'svc-billing', password: placeholder }) }), placeholder).toEqual([]);
    }
  });

  it('refuses a random password under a credential key, whatever placeholder fragments it holds (review 1, F1: 29% passed)', () => {
    const printable = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(fc.string({ unit: printable, minLength: 16, maxLength: 16 }), (password) => {
        expect(find({ text: JSON.stringify({ username: 'svc-billing', password }) }), password).toEqual([{ rule: 'credential_value', path: '/data/text' }]);
      }),
      // Seeded: about one random string in 100,000 is, as a whole, a placeholder's form (`<...>`
      // of name characters), and this test is about fragments.
      { numRuns: 2_000, seed: 20_260_719 },
    );
  });

  it('reads JSON text used as a key, as values are, within the four levels (review 1, F2)', () => {
    const inner = JSON.stringify({ password: 'Tr0ub4dor&3-prod' });
    const cases: [string, string][] = [
      ['a key of the object', JSON.stringify({ [inner]: true })],
      ['a key of a nested object', JSON.stringify({ result: { [inner]: 1 } })],
      ['a key in an array', JSON.stringify([{ [inner]: null }])],
      ['a double-encoded key', JSON.stringify({ [JSON.stringify(inner)]: true })],
      ['a key of JSON text in a value', JSON.stringify({ body: JSON.stringify({ [inner]: true }) })],
      ['a key with an array of secrets', JSON.stringify({ [JSON.stringify({ recovery_codes: ['8f3k-29dj-x7q2'] })]: 0 })],
    ];
    for (const [name, text] of cases) {
      expect(find({ text }), name).toEqual([{ rule: 'credential_value', path: '/data/text' }]);
    }
    // A key without a credential, and JSON text past the four levels, pass.
    expect(find({ text: JSON.stringify({ [JSON.stringify({ note: 'Tr0ub4dor&3-prod' })]: true }) })).toEqual([]);
    expect(find({ text: JSON.stringify({ [encode(downstream, 4)]: true }) })).toEqual([]);
  });

  it('refuses an object or array a credential key holds when a secret is anywhere in it (review 1, F4)', () => {
    for (const [name, value] of [
      ['client_secret holding an object', { client_secret: { value: 'Tq9#vL2m!Rz8' } }],
      ['credentials holding a user and a password', { credentials: { user: 'svc', pass: 'Tq9#vL2m!Rz8' } }],
      ['secrets holding names that are no credential names', { secrets: { DB_PASS: 'Tq9#vL2m!Rz8', STRIPE: 'Tq9#vL2m!Rz9' } }],
      ['an array of objects under recovery_codes', { recovery_codes: [{ code: '8f3k-29dj-x7q2' }] }],
      ['deeper: an object in an array in an object', { password: { history: [{ set_at: 1, was: 'Tq9#vL2m!Rz8' }] } }],
      ['in a vault response', { data: { data: { secrets: { db: { primary: 'Tq9#vL2m!Rz8' } } } } }],
    ] as const) {
      for (const times of [1, 2]) expect(find({ text: encode(value, times) }), `${name} x${times}`).toEqual([{ rule: 'credential_value', path: '/data/text' }]);
    }
    // Short values, placeholders and a JSON Schema describing a password pass; so does the same
    // object under a name that is no credential name, and a secret after the object closed.
    for (const value of [
      { password: { type: 'string', minLength: 8 } },
      { credentials: { user: '<user>', password: '<password>' } },
      { secrets: { enabled: true, count: 3, rotation: 'none' } },
      { settings: { value: 'Tq9#vL2m!Rz8' } },
      { items: [{ password: 'short' }, 'Tq9#vL2m!Rz8'] },
      { a: { password: {} }, b: 'Tq9#vL2m!Rz8' },
    ]) {
      expect(find({ text: JSON.stringify(value) }), JSON.stringify(value)).toEqual([]);
    }
  });

  it('keeps the common case: data with no string starting with {, [ or " finds nothing', () => {
    expect(
      find({
        order_id: 'ord_20260719_000123',
        items: [{ sku: 'SKU-2044', title: 'Pour-over kettle "Gooseneck"' }],
        note: 'She said "hi" and left: {not json}',
        password_hint: 'the usual',
      }),
    ).toEqual([]);
  });
});

// The review: the key rule inside a string holding JSON read names with its own list
// (`isCredentialKeyName`), not with the tool's key scan. A tool's `sensitive_keys.extra` was refused
// as a key of `data` and passed inside such a string; a look-alike (`pаssword`, Cyrillic `а`), a
// duplicate key (JSON.parse keeps the last one) and a list of credentials passed too. Each case is
// sealed and verified: a package sealed under the allow list verifies, and a package rewritten to
// carry what sealing refuses fails verification.
describe('keys inside a string holding JSON: the tool key scan, at sealing and at verification', () => {
  const surveySpec = copy(loadToolSpecs().kbSearch);
  Object.assign((surveySpec.output_schema as { properties: Record<string, unknown> }).properties, {
    response_id: { type: 'string', maxLength: 64 },
  });
  surveySpec.sensitive_keys = { extra: ['pin_code'], allow: ['response_id'] };
  surveySpec.contract.tool_name = 'kb_survey';
  const surveyRegistry = createToolRegistry([surveySpec]);
  const surveyDigester = createDigester();
  const seedCase = loadKbCases().find((entry) => entry.name === 'success-with-hits');
  if (seedCase === undefined) throw new Error('missing kb-search/success-with-hits.json');

  interface SurveyHit {
    title: string;
    snippet: string;
    source: string;
    revision: string;
  }
  type SurveyData = { hits: SurveyHit[]; response_id?: string };
  function surveyInput(mutate: (data: SurveyData) => void): SealResultInput {
    const input = copy(seedCase?.seal_input) as unknown as SealResultInput & { subject: { output: { data: SurveyData } } };
    mutate(input.subject.output.data);
    return { ...input, tool_name: 'kb_survey', registry: surveyRegistry, digester: surveyDigester, now: () => '2026-07-19T00:00:01Z' };
  }
  const withSnippet = (snippet: string) => (data: SurveyData) => void ((data.hits[0] as SurveyHit).snippet = snippet);
  const SECRET = 'Tr0ub4dor&3-prod';
  const tags = (text: string) => [...text].map((character) => String.fromCodePoint(0xe0000 + character.charCodeAt(0))).join('');

  /** Seals `snippet`, and verifies both the sealed package and one rewritten to carry `snippet`. */
  function sealAndVerify(snippet: string): { violations: unknown[]; verified: unknown; forged: unknown } {
    const input = surveyInput(withSnippet(snippet));
    const output = sealResult(input);
    const clean = sealResult(surveyInput(() => {}));
    expect(clean.violations).toEqual([]);
    const forged = copy(clean.sealed);
    ((forged.model_result.data as unknown as SurveyData).hits[0] as SurveyHit).snippet = snippet;
    return {
      violations: output.violations,
      verified: verifyResult(output.sealed, input),
      forged: verifyResult(rebindDigests(forged, surveyDigester), surveyInput(() => {})),
    };
  }
  const REFUSED = { violations: [{ rule: 'credential_value', path: '/data/hits/0/snippet' }], verified: { ok: true }, forged: { ok: false, reasons: ['output_contract'] } };
  const SEALED = { violations: [], verified: { ok: true }, forged: { ok: true } };

  const refusedBefore: [string, string][] = [
    // A name the tool adds with `sensitive_keys.extra`, in any spelling, at any level.
    ['an extra name', JSON.stringify({ user: 'ana', pin_code: '83920174' })],
    ['an extra name in another spelling', JSON.stringify({ PinCode: '83920174' })],
    ['an extra name in JSON text inside the JSON text', JSON.stringify({ body: JSON.stringify({ 'pin-code': '83920174' }) })],
    // Look-alikes: the key scan refuses every such key of `data` (`non_ascii_key`).
    ['a Cyrillic а in password', `{"p\u0430ssword":"${SECRET}"}`],
    ['a Greek ο in token', `{"t\u03bfken":"${SECRET}"}`],
    ['api_key spelled in Cyrillic letters only', `{"\u0430\u0440\u0456_\u043a\u0435\u0443":"${SECRET}"}`],
    ['upper-case Cyrillic in API_KEY', `{"\u0410PI_K\u0415Y":"${SECRET}"}`],
    ['a grave accent in password', `{"p\u00e0ssword":"${SECRET}"}`],
    ['a combining accent in secret', `{"sec\u0301ret":"${SECRET}"}`],
    ['a variation selector after password', `{"password\ufe0f":"${SECRET}"}`],
    ['password spelled in TAG characters', `{"${tags('password')}":"${SECRET}"}`],
    ['a Cyrillic о and a zero-width space in access_token', `{"access_t\u043e\u200bken":"${SECRET}"}`],
    // JSON.parse keeps the last of duplicate keys; the model reads the text, and every member.
    ['a password before a null duplicate', `{"password":"${SECRET}","password":null}`],
    ['a password before a placeholder duplicate', `{"password":"${SECRET}","password":"<password>"}`],
    ['JSON text with a password in a member a duplicate replaces', `{"body":${JSON.stringify(JSON.stringify({ password: SECRET }))},"body":""}`],
    ['a duplicate inside double-encoded JSON text', JSON.stringify(`{"api_key":"${SECRET}","api_key":""}`)],
    // A list under a credential name is a list of credentials.
    ['a list of recovery codes', JSON.stringify({ recovery_codes: ['8f3k-29dj-x7q2', 'p2m9-vv81-k0s3'] })],
    ['a list of lists of API keys', JSON.stringify({ api_keys: [['k-7f3a9b2c4d']] })],
  ];
  it.each(refusedBefore)('refuses, and verification agrees: %s', (_name, snippet) => {
    expect(sealAndVerify(snippet)).toEqual(REFUSED);
  });

  // Review 1: each passed before (sealed as data, and a package rewritten to carry it verified).
  const refusedAfterReview1: [string, string][] = [
    ['F1: a password holding >', JSON.stringify({ username: 'svc-billing', password: 'Tq9#vL2m>Rz8' })],
    ['F1: a password holding sample', JSON.stringify({ username: 'svc-billing', password: 'Sample-9vL2mRz8' })],
    ['F2: JSON text as a key', JSON.stringify({ [JSON.stringify({ password: SECRET })]: true })],
    ['F2: JSON text as a key of a nested object', JSON.stringify({ result: { [JSON.stringify({ password: SECRET })]: 1 } })],
    ['F3: client secret with an en dash', `{"client\u2013secret":"${SECRET}"}`],
    ['F3: password with a parenthesised translation', `{"password (\u043f\u0430\u0440\u043e\u043b\u044c)":"${SECRET}"}`],
    ['F4: client_secret holding an object', JSON.stringify({ client_secret: { value: SECRET } })],
    ['F4: secrets holding names that are no credential names', JSON.stringify({ secrets: { DB_PASS: SECRET, STRIPE: 'Tq9#vL2m!Rz9' } })],
  ];
  it.each(refusedAfterReview1)('refuses, and verification agrees (review 1): %s', (_name, snippet) => {
    expect(sealAndVerify(snippet)).toEqual(REFUSED);
  });

  // Refused before this change and still refused: what the scan is for.
  const stillRefused: [string, string][] = [
    ['access_token', JSON.stringify({ access_token: 'c2Vzc2lvbi0xMjM0NTY', token_type: 'bearer' })],
    ['password', JSON.stringify({ user: 'ana', password: SECRET })],
    ['api_key, nested in an array', JSON.stringify([{ id: 1 }, { config: { api_key: 'k-7f3a9b2c4d' } }])],
    ['a double-encoded password', JSON.stringify(JSON.stringify({ password: SECRET }))],
    ['a triple-encoded client_secret', JSON.stringify(JSON.stringify(JSON.stringify({ client_secret: 'q9Zr7Kp2Lm4Nx8Vb' })))],
    ['fullwidth letters in password', `{"\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44":"${SECRET}"}`],
    ['a key under __proto__', `{"__proto__":{"password":"${SECRET}"}}`],
    ['a password beside a __proto__ member', `{"__proto__":"x","password":"${SECRET}"}`],
    // Pagination token names end in `token`: the key scan flags them as keys of `data` (a schema
    // cannot declare one, and `sensitive_keys.allow` cannot lift one), so they are credential names
    // here too, in every spelling.
    ['nextPageToken', JSON.stringify({ items: [], nextPageToken: 'CiAKGjBpNDd2Nmp2Zml2' })],
    ['next_page_token', JSON.stringify({ next_page_token: 'CiAKGjBpNDd2Nmp2Zml2' })],
    ['nextPage Token', JSON.stringify({ 'nextPage Token': 'CiAKGjBpNDd2Nmp2Zml2' })],
    ['NEXT-PAGE-TOKEN', JSON.stringify({ 'NEXT-PAGE-TOKEN': 'CiAKGjBpNDd2Nmp2Zml2' })],
    // A value in a credential's form is refused whatever key holds it, an allowed one included.
    ['a GitHub token under the allowed response_id', JSON.stringify({ response_id: 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789' })],
  ];
  it.each(stillRefused)('still refuses, and verification agrees: %s', (_name, snippet) => {
    expect(sealAndVerify(snippet)).toEqual(REFUSED);
  });

  const sealed: [string, string][] = [
    // The tool lifts `response_id`: the same name gets the same verdict in a string of JSON.
    ['the allowed name', JSON.stringify({ response_id: 'resp_8f7e6d5c4b', score: 9 })],
    ['the allowed name in another spelling, double-encoded', JSON.stringify(JSON.stringify({ responseId: 'resp_8f7e6d5c4b' }))],
    // Control and business names the key scan flags in `data` are text here (a chat transcript).
    ['a transcript with role and subject', JSON.stringify([{ role: 'assistant', content: 'Your refund was approved.' }, { subject: 'Quarterly refund summary' }])],
    // Names that are not look-alikes of a credential name.
    ['French and Japanese names', JSON.stringify({ prénom: 'Jean-Baptiste', 名前: '山田太郎さんです', größe: 'extra large' })],
    ['duplicate keys without a credential', '{"status":"pending","status":"approved for payout"}'],
    ['a pagination token with a placeholder', JSON.stringify({ nextPageToken: '<next page token>' })],
    ['a list of words under a name that is no credential', JSON.stringify({ tags: ['password-reset', 'account-security'] })],
  ];
  it.each(sealed)('seals, and the package verifies: %s', (_name, snippet) => {
    expect(sealAndVerify(snippet)).toEqual(SEALED);
  });

  it('seals an allowed name in data and in a string of JSON together, and the package verifies', () => {
    const input = surveyInput((data) => {
      data.response_id = 'resp_8f7e6d5c4b';
      (data.hits[0] as SurveyHit).snippet = JSON.stringify({ response_id: 'resp_8f7e6d5c4b' });
    });
    const output = sealResult(input);
    expect(output.violations).toEqual([]);
    expect(verifyResult(output.sealed, input)).toEqual({ ok: true });
  });

  it('refuses a credential form under the allowed name in data (the value scan)', () => {
    const output = sealResult(surveyInput((data) => void (data.response_id = 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789')));
    expect(output.violations).toEqual([{ rule: 'credential_value', path: '/data/response_id' }]);
  });
});

describe('the walk over the JSON text reads what the parsed value holds (property)', () => {
  // Values whose verdict is plain: a secret (8 characters or more, no placeholder), or not one.
  const SECRETS = ['Tr0ub4dor&3-prod', 'line one\n"quoted" \\ path', 'ünïcødé tëxt hère', '\u2028 sep\u2029arated'];
  const NOT_SECRETS = ['short', '<token>', 'YOUR_API_KEY', ''];
  // Keys that are JSON text too (review 1): read as the model reads them, as values are.
  const JSON_KEYS = ['{"password":"Tr0ub4dor&3-prod"}', '["Tr0ub4dor&3-prod"]', '{"note":"Tr0ub4dor&3-prod"}'];
  const KEYS = ['password', 'pass"word', 'note', 'api_key', 'tenant', 'recovery_codes', 'p\u0430ssword', '__proto__', 'items', 'a\\b', '', ...JSON_KEYS];
  const { value: jsonValue } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom<unknown>(...SECRETS, ...NOT_SECRETS, 1, -2.5e-3, true, false, null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
    ),
  }));
  const secretLike = (value: unknown) => typeof value === 'string' && SECRETS.includes(value);

  /**
   * The same rule over the parsed value: a credential key holding a secret, or an object or array
   * holding one at any depth (review 1: whatever key holds it there), or a key that is JSON text
   * holding one.
   */
  function referenceHolds(value: unknown, underCredential: boolean): boolean {
    if (Array.isArray(value)) return value.some((item) => isCredentialTuple(item) || referenceHolds(item, underCredential));
    if (isPlainObject(value)) {
      return Object.entries(value).some(([key, member]) => keyHolds(key) || referenceHolds(member, underCredential || judgeCredential(key)));
    }
    return underCredential && secretLike(value);
  }
  // An array of two strings in an array, naming a credential and holding a secret
  // (credential-pairs.ts: `[["X-Api-Key", "..."]]`); no generated key is a pair's member name.
  const isCredentialTuple = (item: unknown): boolean =>
    Array.isArray(item) &&
    item.length === 2 &&
    typeof item[0] === 'string' &&
    typeof item[1] === 'string' &&
    isCredentialOutputKey(kbSearch, item[0]) &&
    pairValueLooksLikeSecret(item[1]);
  const keyHolds = (key: string) => JSON_KEYS.includes(key) && referenceHolds(JSON.parse(key), false);
  const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  // The key verdict is `judgeOutputKey`'s (its own tests pin it): this property is about the walk.
  const judgeCredential = (key: string) => judgeOutputKey(kbSearch, key) === 'credential';

  it('agrees with a walk over the parsed value, compact and indented', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(jsonValue, { maxLength: 4 }), fc.dictionary(fc.constantFrom(...KEYS), jsonValue, { maxKeys: 4 })), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(find({ snippet: text }).length > 0, text).toBe(referenceHolds(value, false));
      }),
      { numRuns: 2_000 },
    );
  });
});
