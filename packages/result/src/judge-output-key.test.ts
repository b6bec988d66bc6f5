import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copy, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { findCredentialsInJsonStrings } from './find-credentials-in-json-strings.js';
import { isCredentialOutputKey, judgeOutputKey } from './judge-output-key.js';
import { createToolRegistry, type RegisteredTool } from './tool-registry.js';

const specs = loadToolSpecs();
const surveySpec = copy(specs.kbSearch);
Object.assign((surveySpec.output_schema as { properties: Record<string, unknown> }).properties, {
  response_id: { type: 'string', maxLength: 64 },
});
surveySpec.sensitive_keys = { extra: ['pin_code'], allow: ['response_id'] };
surveySpec.contract.tool_name = 'kb_survey';
const registry = createToolRegistry([specs.kbSearch, surveySpec]);
function registered(name: string): RegisteredTool {
  const tool = registry.get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}
const kbSearch = registered('kb_search');
const kbSurvey = registered('kb_survey');
const SECRET = 'Tr0ub4dor&3-prod';
const tags = (text: string) => [...text].map((character) => String.fromCodePoint(0xe0000 + character.charCodeAt(0))).join('');

describe('judgeOutputKey', () => {
  it('gives the key scan verdict, split into credential and control names', () => {
    const verdicts = (tool: RegisteredTool, names: string[]) => names.map((name) => [name, judgeOutputKey(tool, name)]);
    const credential = ['password', 'API-Key', 'access_token', 'nextPageToken', 'next_page_token', 'nextPage Token', 'NEXTPAGETOKEN', 'recovery_codes', 'token_v2'];
    expect(verdicts(kbSearch, credential)).toEqual(credential.map((name) => [name, 'credential']));
    // Flagged as keys of `data`, but by a control or business rule, or for not being ASCII.
    const control = ['tenant', 'role', 'subject', 'receipt', 'instructions', 'response_id', 'prénom', '名前', 'пароль', '\u200b'];
    expect(verdicts(kbSearch, control)).toEqual(control.map((name) => [name, 'control']));
    const plain = ['q', 'title', 'page', 'next_page', 'cursor', 'pin_code', 'tokens_used', '__proto__'];
    expect(verdicts(kbSearch, plain)).toEqual(plain.map((name) => [name, null]));
  });

  it("reads the tool's own lists: extra names are credential names, allowed names are not flagged", () => {
    for (const name of ['pin_code', 'PinCode', 'pin-code', 'PIN CODE', 'p\u0456n_code']) expect(judgeOutputKey(kbSurvey, name), name).toBe('credential');
    for (const name of ['response_id', 'responseId', 'RESPONSE-ID']) {
      expect(judgeOutputKey(kbSurvey, name), name).toBeNull();
      expect(judgeOutputKey(kbSearch, name), name).toBe('control');
    }
  });

  it('reads look-alikes of a credential name as that name', () => {
    for (const name of [
      'p\u0430ssword', // Cyrillic а
      't\u03bfken', // Greek ο
      '\u0430\u0440\u0456_\u043a\u0435\u0443', // api_key in Cyrillic letters only
      '\u0410PI_K\u0415Y',
      'p\u00e0ssword',
      'sec\u0301ret',
      'password\ufe0f',
      'password\u{e007f}',
      tags('password'),
      `pass${tags('word')}`,
      'access_t\u043e\u200bken',
      's\u0435cr\u0435t_\u043a\u0435y',
      // The review: Cyrillic г and п, Latin small capitals, Coptic ⲟ.
      'passwo\u0433d',
      'toke\u043f',
      '\u0455\u0435c\u0433\u0435t',
      '\u1d18assword',
      'pa\ua731\ua731word',
      'passw\u2c9frd',
    ]) {
      expect(judgeOutputKey(kbSearch, name), name).toBe('credential');
    }
  });

  it('splits words at any character that is no letter or digit, as at ASCII separators (review 1, F3)', () => {
    // Each was read as a word of another language (`control`), so a secret under it in a string
    // holding JSON reached the model, while the ASCII spelling was refused.
    const separated = [
      'client\u2013secret', // en dash
      'client\u2010secret', // hyphen
      'api\u2011key', // non-breaking hyphen
      'access\u00b7token', // middle dot
      'password\u{1f511}', // emoji
      'api\u3000key', // ideographic space
      'client\u2014secret\u2122', // em dash, a symbol
      'access\u2024token', // one dot leader
      '\u00abpassword\u00bb', // guillemets
      'p\u0430ss\u2013word', // a look-alike letter and a separator
      'password (\u043f\u0430\u0440\u043e\u043b\u044c)', // a parenthesised translation
      '\u540d\u524d_token', // beside a word of another language
      'pin\u2013code', // the tool's extra name
    ];
    for (const name of separated) {
      const tool = name === 'pin\u2013code' ? kbSurvey : kbSearch;
      expect(judgeOutputKey(tool, name), name).toBe('credential');
      expect(isCredentialOutputKey(tool, name), name).toBe(true);
      expect(findCredentialsInJsonStrings(tool, { snippet: JSON.stringify({ [name]: SECRET }) }, null), name).toEqual([
        { rule: 'credential_value', path: '/data/snippet' },
      ]);
    }
    // Invisible characters still join a word (the guard drops them too), and words of other
    // languages alone are still no credential names.
    for (const name of ['pass\u3164word', 'pass\u00adword', 'to\u034fken']) expect(judgeOutputKey(kbSearch, name), name).toBe('credential');
    for (const name of ['\u043f\u0430\u0440\u043e\u043b\u044c', '\u540d\u524d\u2013\u540d\u524d', 'pr\u00e9nom\u2013nom', 'r\u00e9sum\u00e9\u00b7title', '\u{1f511}']) {
      expect(judgeOutputKey(kbSearch, name), name).toBe('control');
    }
  });
});

// Pieces of key names: ASCII words and separators, look-alike letters, marks, invisible and TAG
// characters, words of other languages.
const KEY_PIECES = [
  'pass', 'word', 'token', 'next', 'Page', 'api', 'key', 'secret', 'pin', 'code', 'response', 'id', 'tenant', 'role', 'q',
  '_', '-', ' ', 'A', 'o', 'e', 'a', 'k',
  '\u0430', '\u043e', '\u0435', '\u0440', '\u0456', '\u043a', '\u0443', '\u03bf', '\u03b1', '\u00e0', '\u0301', '\ufe0f',
  '\u200b', '\u{e0070}', '\u{e0061}', '\u{e007f}', 'пароль', '名前', 'é', '\u0433', '\u043f', '\u1d18', '\u2c9f',
  // Separators and decorations beyond ASCII (review 1).
  '\u2013', '\u2011', '\u00b7', '\u{1f511}', ' (', ')', '\u3164',
];
const keyName = fc.array(fc.constantFrom(...KEY_PIECES), { minLength: 1, maxLength: 5 }).map((pieces) => pieces.join(''));

describe('one verdict for a key name, wherever it appears (property)', () => {
  it('judgeOutputKey flags exactly the names the tool key scan flags in data', () => {
    fc.assert(
      fc.property(keyName, fc.constantFrom(kbSearch, kbSurvey), (name, tool) => {
        expect(judgeOutputKey(tool, name) !== null).toBe(tool.scanSensitiveKeys({ [name]: null }).length > 0);
      }),
      { numRuns: 2_000 },
    );
  });

  it('isCredentialOutputKey (no scan in the common case) answers exactly judgeOutputKey === credential', () => {
    fc.assert(
      fc.property(keyName, fc.constantFrom(kbSearch, kbSurvey), (name, tool) => {
        expect(isCredentialOutputKey(tool, name), name).toBe(judgeOutputKey(tool, name) === 'credential');
      }),
      { numRuns: 5_000 },
    );
  });

  it('a string holding JSON with a secret under the name is refused exactly when the name is a credential name, however the member is written', () => {
    fc.assert(
      fc.property(keyName, fc.constantFrom(kbSearch, kbSurvey), (name, tool) => {
        const credential = judgeOutputKey(tool, name) === 'credential';
        const key = JSON.stringify(name);
        for (const text of [
          JSON.stringify({ [name]: SECRET }),
          `{${key}:${JSON.stringify(SECRET)},${key}:null}`,
          JSON.stringify({ [name]: [SECRET] }),
          JSON.stringify(JSON.stringify({ note: 'n', [name]: SECRET })),
        ]) {
          expect(findCredentialsInJsonStrings(tool, { snippet: text }, null).length > 0, text).toBe(credential);
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
