// A credential written as a name/value pair: the key scan reads names only as keys, and the value
// form search misses a password or an API key of no known form. Made-up credentials, none live.
import type { JsonObject, JsonValue } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { copy, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { rebindDigests } from './__fixtures__/rebind-digests.js';
import { findCredentialPairs, looksLikeSecret, memberRole, NAME_MEMBER, OTHER_MEMBER, pairValueLooksLikeSecret, VALUE_MEMBER } from './credential-pairs.js';
import { findCredentialsInJsonStrings } from './find-credentials-in-json-strings.js';
import { sealResult } from './seal-result.js';
import { createToolRegistry, type RegisteredTool } from './tool-registry.js';
import type { ToolSpec } from './tool-spec.js';
import { verifyResult } from './verify-result.js';

// A tool that reports what a downstream answered: an open list of name/value entries, as HTTP
// header lists, environment variables and tags are written.
const entry = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 64 },
    Key: { type: 'string', maxLength: 64 },
    ParameterKey: { type: 'string', maxLength: 64 },
    value: { type: 'string', maxLength: 256 },
    Value: { type: 'string', maxLength: 256 },
    ParameterValue: { type: 'string', maxLength: 256 },
    values: { type: 'array', maxItems: 4, items: { type: 'string', maxLength: 256 } },
    description: { type: 'string', maxLength: 256 },
    count: { type: 'integer' },
    body: { type: 'string', maxLength: 2048 },
  },
};
const probeSpec: ToolSpec = (() => {
  const spec = copy(loadToolSpecs().kbSearch) as ToolSpec;
  spec.contract = { ...spec.contract, tool_name: 'probe' };
  spec.output_schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['entries'],
    properties: { entries: { type: 'array', maxItems: 8, items: entry } },
  };
  spec.limits = { maxBytes: 16384, maxDepth: 4, maxArrayItems: 8, maxObjectKeys: 16, maxStringLength: 2048, maxTotalNodes: 256 };
  spec.sensitive_keys = { extra: ['tenant_pin'] };
  return spec;
})();
const registry = createToolRegistry([probeSpec]);
const probe: RegisteredTool = (() => {
  const tool = registry.get('probe');
  if (tool === undefined) throw new Error('no probe');
  return tool;
})();

const pairs = (data: JsonValue): unknown[] => findCredentialPairs(probe, data);
const entries = (...items: JsonObject[]): JsonObject => ({ entries: items });

describe('memberRole', () => {
  it('reads the names APIs give the two members of a pair, in any case and with any separators', () => {
    for (const name of ['name', 'Name', 'key', 'Key', 'k', 'header', 'header_name', 'ParameterKey', 'OptionName', 'env_var']) {
      expect(memberRole(name), name).toBe(NAME_MEMBER);
    }
    for (const name of ['value', 'Value', 'VALUE', 'v', 'val', 'values', 'ParameterValue', 'header-value', 'secret', 'val_ue']) {
      expect(memberRole(name), name).toBe(VALUE_MEMBER);
    }
    // Prose and identifiers are not a pair's value: a knowledge-base article named
    // `password-reset` holds prose in `content`.
    // A form's options are `{"label": ..., "value": ...}`: `label` names no credential.
    for (const name of ['content', 'text', 'description', 'data', 'body', 'count', 'title', 'id', 'label', 'валуе', 'vаlue', '', 'v'.repeat(65)]) {
      expect(memberRole(name), name).toBe(OTHER_MEMBER);
    }
  });
});

describe('findCredentialPairs: a credential written as a name/value pair in data', () => {
  const refused: [string, JsonObject, string][] = [
    ['an HTTP header list', entries({ name: 'Content-Type', value: 'application/json' }, { name: 'Authorization', value: 'Bearer abcdefghijklmnop' }), '/data/entries/1'],
    ['a header of no known credential form', entries({ name: 'X-Api-Key', value: 'q9Zr7Kp2Lm4Nx8Vb' }), '/data/entries/0'],
    ['an environment variable', entries({ name: 'DB_PASSWORD', value: 'Tr0ub4dor&3-prod' }), '/data/entries/0'],
    ['AWS tags (Key / Value)', entries({ Key: 'GITHUB_TOKEN', Value: 'q9Zr7Kp2Lm4Nx8Vb' }), '/data/entries/0'],
    ['a stack parameter', entries({ ParameterKey: 'ClientSecret', ParameterValue: 'q9Zr7Kp2Lm4Nx8Vb' }), '/data/entries/0'],
    ['the value member before the name member', entries({ value: 'q9Zr7Kp2Lm4Nx8Vb', name: 'session_token' }), '/data/entries/0'],
    ['values in a list', entries({ name: 'Set-Cookie', values: ['theme=dark', 'sid=q9Zr7Kp2Lm4Nx8Vb'] }), '/data/entries/0'],
    ['a look-alike name (Cyrillic а in password)', entries({ name: 'pаssword', value: 'Tr0ub4dor&3-prod' }), '/data/entries/0'],
    ["a name the tool's sensitive_keys.extra adds", entries({ name: 'tenant_pin', value: 'x7-48151623' }), '/data/entries/0'],
    ['a letters-only token after an authentication scheme', entries({ name: 'Authorization', value: 'Bearer abcdefghijklmnop' }), '/data/entries/0'],
  ];
  it.each(refused)('refuses %s', (_name, data, path) => {
    expect(pairs(data)).toEqual([{ rule: 'credential_value', path }]);
  });

  it('passes pairs of other names, placeholders, short values, names without a value and prose beside a name', () => {
    for (const data of [
      entries({ name: 'Content-Type', value: 'application/json' }, { name: 'Cache-Control', value: 'no-store, max-age=0' }),
      entries({ name: 'Authorization', value: 'Bearer <token>' }, { name: 'X-Api-Key', value: 'YOUR_API_KEY' }, { name: 'password', value: '********' }),
      entries({ name: 'pin', value: '1234' }, { name: 'password', value: 'short' }),
      // A form field's description, a count, a body: no value member holds the secret.
      entries({ name: 'password', description: 'At least twelve characters, one of them a digit', count: 12 }),
      entries({ name: 'password-reset', body: 'To reset your password, open Settings and choose Security.' }),
      // The value is not a string: a number is not taken for a secret (token counts, limits).
      { entries: [{ name: 'tokens', value: 12345678 }] },
      // The name member names something else; the secret-looking value is an ordinary one.
      entries({ name: 'order_ref', value: 'ORDER-C7-2026-07' }),
    ]) {
      expect(pairs(data), JSON.stringify(data)).toEqual([]);
    }
  });

  it('reads a pair within one object only: a name in one entry and a value in the next are no pair', () => {
    expect(pairs(entries({ name: 'Authorization', description: 'see next' }, { name: 'note', value: 'q9Zr7Kp2Lm4Nx8Vb' }))).toEqual([]);
  });
});

describe('the review of name/value pairs', () => {
  const S = 'q9Zr7Kp2Lm4Nx8Vb';

  it('finds pairs written as a list of two-string arrays ([...headers]), in data and in JSON text', () => {
    const tuples = { headers: [['content-type', 'application/json'], ['x-api-key', S]] };
    expect(pairs(tuples)).toEqual([{ rule: 'credential_value', path: '/data/headers' }]);
    expect(findCredentialsInJsonStrings(probe, { body: JSON.stringify(tuples) }, null)).toEqual([{ rule: 'credential_value', path: '/data/body' }]);
    expect(findCredentialsInJsonStrings(probe, { body: JSON.stringify([['X-Api-Key', S]]) }, null)).toEqual([{ rule: 'credential_value', path: '/data/body' }]);
    // Not a pair: two strings alone (a list of two tags), an array of three, a non-string second item.
    for (const data of [
      { tags: ['api_key', S] },
      { headers: [['x-api-key', S, 'extra']] },
      { headers: [['x-api-key', { v: 1 }]] },
    ]) {
      expect(pairs(data), JSON.stringify(data)).toEqual([]);
      expect(findCredentialsInJsonStrings(probe, { body: JSON.stringify(data) }, null), JSON.stringify(data)).toEqual([]);
    }
  });

  it("finds a flat list of names and values (Node's rawHeaders), in data and in JSON text", () => {
    for (const list of [
      ['Host', 'api.example.com', 'X-Api-Key', S],
      ['Authorization', `Bearer ${S}`, 'Accept', '*/*'],
      ['host', 'h', 'content-type', 'application/json', 'cookie', 'q', 'x-auth-token', S],
      ['Accept', '*/*', 'tenant_pin', S],
      // HTTP/2: Node lists the pseudo-headers first (the review: a leading colon hid the list).
      [':path', '/v1/orders', ':method', 'GET', ':authority', 'api.example.com', ':scheme', 'http', 'x-api-key', S],
    ]) {
      const data = { rawHeaders: list };
      expect(pairs(data), JSON.stringify(data)).toEqual([{ rule: 'credential_value', path: '/data/rawHeaders' }]);
      expect(findCredentialsInJsonStrings(probe, { body: JSON.stringify(data) }, null), JSON.stringify(data)).toEqual([{ rule: 'credential_value', path: '/data/body' }]);
      expect(findCredentialsInJsonStrings(probe, { body: JSON.stringify(list) }, null), JSON.stringify(list)).toEqual([{ rule: 'credential_value', path: '/data/body' }]);
    }
    // Not such a list: the credential's name at an odd index (a value, not a name), an odd number
    // of items, fewer than four, an item that is not a string, an even item that is no field name
    // (words with spaces), a value that is not secret-looking (a mask, a placeholder, words).
    for (const list of [
      ['Host', 'X-Api-Key', S, 'Accept'],
      ['Host', 'api.example.com', 'X-Api-Key', S, 'Accept'],
      ['X-Api-Key', S],
      ['Host', 'api.example.com', 'X-Api-Key', S, 'Retry', 3],
      ['Host', 'api.example.com', 'X-Api-Key', S, { name: 'x' }, 'y'],
      ['Host', 'api.example.com', 'the api key', S],
      ['Host', 'api.example.com', 'X-Api-Key', '************a1b2'],
      ['Host', 'api.example.com', 'Authorization', 'Bearer <token>'],
      ['Host', 'api.example.com', 'X-Api-Key', 'Not configured'],
      // Lists of tags, which pair a credential's name with a mixed-case word by chance (the review):
      // no field every HTTP message carries is named, so they are no header lists.
      ['password', '1Password', 'manager', 'KeePassXC'],
      ['ethereum', 'wallet', 'token', 'MetaMask'],
      ['X-Api-Key', S, 'X-Trace', 'abc'],
    ]) {
      const data = { rawHeaders: list } as JsonObject;
      expect(pairs(data), JSON.stringify(data)).toEqual([]);
      expect(findCredentialsInJsonStrings(probe, { body: JSON.stringify(data) }, null), JSON.stringify(data)).toEqual([]);
    }
    // A secret after a name at an even index of a nested list still counts there, not in its parent.
    expect(pairs({ lists: [['Host', 'h', 'X-Api-Key', S], 'tail'] })).toEqual([{ rule: 'credential_value', path: '/data/lists/0' }]);
  });

  it('passes the ordinary outputs the review found refused: options, i18n tables, masks, references, prose, numbers, PWD', () => {
    for (const data of [
      { options: [{ label: 'Password', value: 'password' }, { label: 'Refresh token', value: 'refresh_token' }] },
      { enums: [{ name: 'PASSWORD', value: 'password' }] },
      { strings: [{ key: 'login.password', value: 'Password' }, { key: 'auth.forgot_password', value: 'Mot de passe oublié' }] },
      { settings: [{ name: 'API key', value: '••••••••••••' }, { name: 'API key', value: '************a1b2' }, { name: 'API key', value: 'sk-...a1b2' }] },
      { settings: [{ name: 'API key', value: 'Not configured' }] },
      { settings: [{ name: 'DB_PASSWORD', value: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf' }] },
      { settings: [{ name: 'DB_PASSWORD', value: '@Microsoft.KeyVault(SecretUri=https://v.vault.azure.net/secrets/db/)' }] },
      { settings: [{ name: 'DB_PASSWORD', value: 'projects/acme/secrets/db-password/versions/3' }] },
      { headers: [{ name: 'Authorization', value: 'Bearer $TOKEN' }] },
      { attributes: [{ name: 'Cookie', value: 'Oatmeal raisin' }] },
      { series: [{ name: 'tokens', value: '12345678' }, { name: 'tokens', value: '1,234,567.5' }] },
      { env: [{ name: 'PWD', value: '/usr/src/app' }, { name: 'OLDPWD', value: '/usr/src' }] },
      { Tags: [{ Key: 'Secret', Value: 'not-applicable' }] },
    ]) {
      expect(pairs(data), JSON.stringify(data)).toEqual([]);
      expect(findCredentialsInJsonStrings(probe, { body: JSON.stringify(data) }, null), JSON.stringify(data)).toEqual([]);
    }
    // What a secret holding a mask character or plain letters still is.
    for (const value of ['Tq9...vL2mRz8', 'qZrKpLmNxVbTyWsD', 'Bearer abcdefghijklmnop', 'sk-...a1b2c3d4e5', 'hunter2-prod']) {
      expect(pairValueLooksLikeSecret(value), value).toBe(true);
    }
  });

  it('tries the placeholder pattern on short values only: a scheme word and 100,000 spaces is decided at once', () => {
    // Each space the scheme's separator gave back made the pattern's alternatives rescan the rest:
    // seconds for 65,000 spaces (6.2 s sealing in the review), minutes for this one.
    const spaces = `Bearer${' '.repeat(100_000)}x!`;
    expect(looksLikeSecret(spaces)).toBe(true);
    expect(looksLikeSecret(`Bearer${' '.repeat(200)}x!`)).toBe(true);
    expect(looksLikeSecret(`Bearer${' '.repeat(200)}<token>`)).toBe(false);
    // The pattern is not tried past 256 characters: a template that long is taken for a secret.
    expect(looksLikeSecret(`<${'a'.repeat(254)}>`)).toBe(false);
    expect(looksLikeSecret(`<${'a'.repeat(300)}>`)).toBe(true);
  });
});

describe('the second review of name/value pairs', () => {
  const S = 'q9Zr7Kp2Lm4Nx8Vb';
  const inText = (data: JsonValue): unknown[] => findCredentialsInJsonStrings(probe, { body: JSON.stringify(data) }, null);

  it("keeps a pair's extra shapes (masks, shell variables) out of step 9: a password under a credential key in JSON text is still refused", () => {
    for (const password of ['MyS3cretPass*2024', 'Summer2024*abc', 'P4ss...w0rd', '$uperSecret123', '$HsEChwq5ciEAnU5']) {
      expect(looksLikeSecret(password), password).toBe(true);
      expect(inText({ password }), password).toEqual([{ rule: 'credential_value', path: '/data/body' }]);
    }
    // As a pair's value, a settings page's mask and an upper-case shell variable are no secret.
    for (const value of ['sk-...a1b2', 'sk-proj-****wxyz', '************a1b2', '$API_TOKEN', '/usr/src/app', '3600 seconds']) {
      expect(pairValueLooksLikeSecret(value), value).toBe(false);
    }
  });

  it('reads a value member inside a value member alike in data and in JSON text (an OTLP attribute)', () => {
    for (const data of [
      { entries: [{ name: 'X-Api-Key', value: { values: [S] } }] },
      { attributes: [{ key: 'http.request.header.x-api-key', value: { arrayValue: { values: [{ stringValue: S }] } } }] },
    ]) {
      expect(pairs(data).length, JSON.stringify(data)).toBe(1);
      expect(inText(data), JSON.stringify(data)).toEqual([{ rule: 'credential_value', path: '/data/body' }]);
    }
  });

  it('reads pwd as the password it is in a login form, and a path under PWD as no secret', () => {
    expect(pairs({ params: [{ name: 'log', value: 'admin' }, { name: 'pwd', value: 'Tr0ub4dor&3x!' }] })).toEqual([
      { rule: 'credential_value', path: '/data/params/1' },
    ]);
    expect(pairs({ env: [{ name: 'PWD', value: '/usr/src/app' }] })).toEqual([]);
  });

  it('takes mixed-case and long capital runs for secrets, words and prose for none', () => {
    for (const value of ['qZrKpLmN_xVbTyUiO', 'JBSWY3DPEHPKXPXP'.replace(/[0-9]/g, 'Q'), 'ABCDEFGHIJKLMNOP']) {
      expect(pairValueLooksLikeSecret(value), value).toBe(true);
    }
    for (const value of ['Required, from the dashboard', 'Enter your password.', 'パスワードを入力してください', 'NOT_CONFIGURED', 'Bearer ***REDACTED***']) {
      expect(pairValueLooksLikeSecret(value), value).toBe(false);
    }
    expect(pairs({ rows: [['api_key', 'Required, from the dashboard'], ['password', 'min twelve characters']] })).toEqual([]);
  });
});

describe('the third review of name/value pairs', () => {
  const inText = (data: JsonValue): unknown[] => findCredentialsInJsonStrings(probe, { body: JSON.stringify(data) }, null);
  const refusedInText = [{ rule: 'credential_value', path: '/data/body' }];

  it('reads a path as segments of lower case with single capitals: a base64 key starting with / is a secret', () => {
    const key = '/G8fJpkB1KKXGWuB0CTNiQnhYnHhvtcRSC/0ZF2c';
    expect(pairValueLooksLikeSecret(key)).toBe(true);
    expect(pairs({ env: [{ name: 'AWS_SECRET_ACCESS_KEY', value: key }] })).toEqual([{ rule: 'credential_value', path: '/data/env/0' }]);
    for (const path of ['/usr/src/app', '~/.aws/credentials', 'C:\\Users\\Me\\AppData', '/var/run/secrets/kubernetes.io/serviceaccount/token']) {
      expect(pairValueLooksLikeSecret(path), path).toBe(false);
    }
  });

  it('takes a symbols-only password for a secret: uncased text needs a letter of an uncased script', () => {
    expect(pairValueLooksLikeSecret('#%&*@!?_')).toBe(true);
    expect(pairs({ env: [{ name: 'DB_PASSWORD', value: '#%&*@!?_' }] }).length).toBe(1);
    expect(pairValueLooksLikeSecret('パスワード。')).toBe(false);
  });

  it('marks every holder once: a direct value string and a nested one both reach the outer object', () => {
    // The inner object's own value member is marked first; the outer object must be marked too.
    const data = { name: 'X-Api-Key', value: { value: 'q9Zr7Kp2Lm4Nx8Vb', more: { values: ['Tr0ub4dor&3-prod'] } } };
    expect(inText(data)).toEqual(refusedInText);
    expect(pairs(data).length).toBe(1);
    const later = { value: { value: 'q9Zr7Kp2Lm4Nx8Vb' }, name: 'X-Api-Key' };
    expect(inText(later)).toEqual(refusedInText);
    expect(pairs(later).length).toBe(1);
  });

  it('decides a value anew on every call: an object changed after a call is read as it is now', () => {
    const data = { entries: [{ name: 'X-Api-Key', value: { current: 'not set' } }] } as { entries: [{ name: string; value: { current: string } }] };
    expect(pairs(data)).toEqual([]);
    data.entries[0].value.current = 'q9Zr7Kp2Lm4Nx8Vb';
    expect(pairs(data)).toEqual([{ rule: 'credential_value', path: '/data/entries/0' }]);
  });

  it('reads words ending with a full stop as words', () => {
    for (const value of ['Not configured.', 'NOT_SET.', 'Required, see below.']) expect(pairValueLooksLikeSecret(value), value).toBe(false);
  });
});

describe('findCredentialsInJsonStrings: name/value pairs in JSON text inside a string', () => {
  const find = (body: string): unknown[] => {
    const data = entries({ name: 'response', body });
    const withText = findCredentialsInJsonStrings(probe, data, canonicalize(data));
    expect(findCredentialsInJsonStrings(probe, data, null)).toEqual(withText);
    return withText;
  };
  const refusedAt = [{ rule: 'credential_value', path: '/data/entries/0/body' }];

  it('refuses a header list returned as text, at any depth and in either member order', () => {
    expect(find(JSON.stringify({ status: 200, headers: [{ name: 'Authorization', value: 'Bearer abcdefghijklmnop' }] }))).toEqual(refusedAt);
    expect(find(JSON.stringify([{ value: 'q9Zr7Kp2Lm4Nx8Vb', Key: 'X-Api-Key' }]))).toEqual(refusedAt);
    expect(find(JSON.stringify({ env: [{ name: 'DB_PASSWORD', values: ['Tr0ub4dor&3-prod'] }] }))).toEqual(refusedAt);
    // Twice encoded: the string literal's content is read as the next level.
    expect(find(JSON.stringify(JSON.stringify([{ name: 'X-Api-Key', value: 'q9Zr7Kp2Lm4Nx8Vb' }])))).toEqual(refusedAt);
  });

  it('reads every member as the model does: a later duplicate value does not hide the first', () => {
    expect(find('{"name":"X-Api-Key","value":"q9Zr7Kp2Lm4Nx8Vb","value":""}')).toEqual(refusedAt);
    expect(find('{"name":"X-Api-Key","name":"Accept","value":"q9Zr7Kp2Lm4Nx8Vb"}')).toEqual(refusedAt);
  });

  it('passes pairs of other names, placeholders, and a name and a value in different objects', () => {
    expect(find(JSON.stringify({ headers: [{ name: 'Accept', value: 'application/json' }, { name: 'Authorization', value: 'Bearer <token>' }] }))).toEqual([]);
    expect(find(JSON.stringify([{ name: 'Authorization', note: 'see next' }, { name: 'note', value: 'q9Zr7Kp2Lm4Nx8Vb' }]))).toEqual([]);
    // A value member of an inner object does not lend its secret to the outer one's name...
    expect(find(JSON.stringify({ name: 'password', meta: { value: 'q9Zr7Kp2Lm4Nx8Vb' } }))).toEqual([]);
    // ...but whatever the outer value member holds, at any depth, is its value.
    expect(find(JSON.stringify({ name: 'password', value: { current: ['q9Zr7Kp2Lm4Nx8Vb'] } }))).toEqual(refusedAt);
  });
});

describe('sealing and verification', () => {
  const digester = createDigester();
  const call = {
    provider: 'openai',
    api_family: 'responses',
    response_id: 'resp_1',
    call_id: 'call_1',
    adapter_revision: 'openai-responses-v1',
    operation_id: 'op-000001',
    idempotency_key: null,
  };
  const input = (data: JsonObject) => ({
    registry,
    tool_name: 'probe',
    principal: { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: [] },
    call,
    arguments: { query: 'headers' },
    digester,
    subject: { kind: 'data' as const, output: { data, resource_revision: 'kb-index-r1', observed_at: '2026-07-19T00:00:00Z' } },
    execution: { delivery: 'fresh' as const },
    now: (): string => '2026-07-19T00:00:01Z',
  });
  const leaking = entries({ name: 'Accept', value: 'application/json' }, { name: 'X-Api-Key', value: 'q9Zr7Kp2Lm4Nx8Vb' });

  it('refuses the output at sealing, and the secret does not reach model_result', () => {
    const sealed = sealResult(input(leaking));
    expect(sealed.violations).toEqual([{ rule: 'credential_value', path: '/data/entries/1' }]);
    expect(sealed.sealed.model_result.status).toBe('failed');
    expect(sealed.canonical_model_result).not.toContain('q9Zr7Kp2Lm4Nx8Vb');
  });

  it('fails verification of a package whose data was rewritten to hold a pair, digests rebound', () => {
    const clean = entries({ name: 'Accept', value: 'application/json' }, { name: 'X-Api-Key', value: '<key>' });
    const sealed = sealResult(input(clean));
    expect(sealed.sealed.model_result.status).toBe('succeeded');
    expect(verifyResult(sealed.sealed, input(clean))).toEqual({ ok: true });
    const forged = copy(sealed.sealed);
    forged.model_result.data = leaking;
    const verdict = verifyResult(rebindDigests(forged, digester), input(clean));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reasons).toContain('output_contract');
  });
});
