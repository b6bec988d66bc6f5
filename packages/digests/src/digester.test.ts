import { createHash, createHmac } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import type { ModelResult, ToolContract } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { CanonicalizationError } from './canonicalization-error.js';
import { canonicalize } from './canonicalize.js';
import {
  createDigester,
  DIGEST_DOMAINS,
  MIN_KEY_BYTES,
  type CallBindingDigestInput,
  type DigesterOptions,
  type RequestDigestInput,
} from './digester.js';
import { nobleBackend, type HashBackend } from './hash-backend.js';
import { nodeCryptoBackend } from './node.js';

// Independent oracles: OpenSSL through node:crypto, over canonical text written out by hand.
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const hmacSha256 = (key: Uint8Array, text: string): string => createHmac('sha256', key).update(text, 'utf8').digest('hex');

const KEY = Uint8Array.from({ length: 32 }, (_, index) => index);
const plain = createDigester();
const keyed = createDigester({ key: KEY });

const contract: ToolContract = {
  tool_name: 'create_refund_draft',
  effect: 'write',
  input_revision: 'in-3',
  output_revision: 'out-2',
  effect_revision: 'fx-1',
  handler_revision: 'h-9',
  producer_revision: 'orders-mock-v2',
  policy_revision: 'pol-4',
};

const request: RequestDigestInput = {
  tenant_id: 'acme',
  subject_id: 'user-42',
  tool_name: 'create_refund_draft',
  arguments: { order_ref: 'ORDER-7', amount: { value: 12.5, currency: 'EUR' } },
  input_revision: 'in-3',
  output_revision: 'out-2',
  effect_revision: 'fx-1',
};

const modelResult: ModelResult = {
  schema_version: 'tool-model-result-v2',
  status: 'succeeded',
  data: { order_ref: 'ORDER-7', status: 'paid' },
  error: null,
  execution: { outcome: 'committed', delivery: 'fresh', complete: true, truncated: false },
  provenance: {
    source_label: 'orders',
    producer_revision: 'orders-mock-v2',
    resource_revision: 'order-7-r3',
    observed_at: '2026-07-19T00:00:00Z',
    trust: 'untrusted_data',
  },
};

const call: CallBindingDigestInput = {
  provider: 'openai',
  api_family: 'responses',
  response_id: 'resp_1',
  call_id: 'call_1',
  operation_id: 'op_1',
  idempotency_key: 'idem-1',
  adapter_revision: 'openai-responses-v1',
  tool_contract: contract,
  request_sha256: 'a'.repeat(64),
  result_sha256: 'b'.repeat(64),
};

describe('digest texts (what exactly is hashed)', () => {
  it('principalRef hashes the tagged tenant and subject only', () => {
    const text = '{"domain":"toolseal.principal_ref.v1","subject_id":"user-42","tenant_id":"acme"}';
    // Roles are not part of the reference.
    const principal = { tenant_id: 'acme', subject_id: 'user-42', roles: ['admin'] };
    expect(plain.principalRef(principal)).toBe(sha256(text));
    expect(keyed.principalRef(principal)).toBe(hmacSha256(KEY, text));
  });

  it('requestDigest hashes tenant, subject, tool, arguments and three revisions', () => {
    const text =
      '{"arguments":{"amount":{"currency":"EUR","value":12.5},"order_ref":"ORDER-7"},"domain":"toolseal.request.v1",' +
      '"effect_revision":"fx-1","input_revision":"in-3","output_revision":"out-2","subject_id":"user-42",' +
      '"tenant_id":"acme","tool_name":"create_refund_draft"}';
    expect(plain.requestDigest(request)).toBe(sha256(text));
    expect(keyed.requestDigest(request)).toBe(hmacSha256(KEY, text));
  });

  it('resultDigest hashes the tagged model result', () => {
    const text =
      '{"domain":"toolseal.result.v1","model_result":{"data":{"order_ref":"ORDER-7","status":"paid"},"error":null,' +
      '"execution":{"complete":true,"delivery":"fresh","outcome":"committed","truncated":false},' +
      '"provenance":{"observed_at":"2026-07-19T00:00:00Z","producer_revision":"orders-mock-v2",' +
      '"resource_revision":"order-7-r3","source_label":"orders","trust":"untrusted_data"},' +
      '"schema_version":"tool-model-result-v2","status":"succeeded"}}';
    expect(canonicalize({ domain: DIGEST_DOMAINS.result, model_result: modelResult })).toBe(text);
    expect(plain.resultDigest(modelResult)).toBe(sha256(text));
    expect(keyed.resultDigest(modelResult)).toBe(hmacSha256(KEY, text));
  });

  it('callBindingDigest hashes provider context, operation, idempotency key, contract and both digests', () => {
    const text =
      '{"adapter_revision":"openai-responses-v1","api_family":"responses","call_id":"call_1",' +
      '"domain":"toolseal.call_binding.v1","idempotency_key":"idem-1","operation_id":"op_1","provider":"openai",' +
      `"request_sha256":"${'a'.repeat(64)}","response_id":"resp_1","result_sha256":"${'b'.repeat(64)}",` +
      '"tool_contract":{"effect":"write","effect_revision":"fx-1","handler_revision":"h-9","input_revision":"in-3",' +
      '"output_revision":"out-2","policy_revision":"pol-4","producer_revision":"orders-mock-v2",' +
      '"tool_name":"create_refund_draft"}}';
    expect(plain.callBindingDigest(call)).toBe(sha256(text));
    expect(keyed.callBindingDigest(call)).toBe(hmacSha256(KEY, text));
  });

  it('digestText hashes the UTF-8 bytes and digestTagged the canonical tagged object', () => {
    expect(plain.digestText('Zoë 😀')).toBe(createHash('sha256').update(Buffer.from('Zoë 😀', 'utf8')).digest('hex'));
    expect(plain.digestText('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(plain.digestTagged('example.v1', { b: [2, 1], a: null })).toBe(sha256('{"a":null,"b":[2,1],"domain":"example.v1"}'));
  });
});

describe('digest properties', () => {
  it('returns lowercase 64-hex digests', () => {
    const all = [
      plain.principalRef(request),
      plain.requestDigest(request),
      plain.resultDigest(modelResult),
      plain.callBindingDigest(call),
      keyed.requestDigest(request),
    ];
    for (const digest of all) expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(all).size).toBe(all.length);
  });

  it('leaves the call id and the idempotency key out of the request digest', () => {
    const withCallIdentity = { ...request, call_id: 'call_2', idempotency_key: 'idem-2' };
    expect(plain.requestDigest(withCallIdentity)).toBe(plain.requestDigest(request));
  });

  it('changes the request digest when any bound field changes', () => {
    const base = plain.requestDigest(request);
    const variants: RequestDigestInput[] = [
      { ...request, tenant_id: 'other' },
      { ...request, subject_id: 'user-43' },
      { ...request, tool_name: 'get_order' },
      { ...request, arguments: { order_ref: 'ORDER-7', amount: { value: 12.51, currency: 'EUR' } } },
      { ...request, input_revision: 'in-4' },
      { ...request, output_revision: 'out-3' },
      { ...request, effect_revision: 'fx-2' },
    ];
    const digests = variants.map((variant) => plain.requestDigest(variant));
    expect(digests).not.toContain(base);
    expect(new Set(digests).size).toBe(variants.length);
  });

  it('does not let tenant and subject trade places', () => {
    const swapped = { tenant_id: 'user-42', subject_id: 'acme' };
    expect(plain.principalRef(swapped)).not.toBe(plain.principalRef(request));
  });

  it('changes the call binding when any bound field changes, including the idempotency key', () => {
    const base = plain.callBindingDigest(call);
    const variants: CallBindingDigestInput[] = [
      { ...call, provider: 'anthropic' },
      { ...call, api_family: 'chat' },
      { ...call, response_id: 'resp_2' },
      { ...call, call_id: 'call_2' },
      { ...call, operation_id: 'op_2' },
      { ...call, idempotency_key: 'idem-2' },
      { ...call, idempotency_key: null },
      { ...call, adapter_revision: 'openai-responses-v2' },
      { ...call, request_sha256: 'c'.repeat(64) },
      { ...call, result_sha256: 'c'.repeat(64) },
      ...(Object.keys(contract) as (keyof ToolContract)[]).map((field) => ({
        ...call,
        tool_contract: { ...contract, [field]: field === 'effect' ? 'read' : `${contract[field]}x` },
      })),
    ];
    const digests = variants.map((variant) => plain.callBindingDigest(variant));
    expect(digests).not.toContain(base);
    expect(new Set(digests).size).toBe(variants.length);
  });

  it('binds only the named tool contract fields', () => {
    const extended = { ...call, tool_contract: { ...contract, note: 'ignored' } as ToolContract };
    expect(plain.callBindingDigest(extended)).toBe(plain.callBindingDigest(call));
  });

  it('changes the result digest when any field of the model result changes', () => {
    const base = plain.resultDigest(modelResult);
    const variants: ModelResult[] = [
      { ...modelResult, status: 'unknown' },
      { ...modelResult, data: { order_ref: 'ORDER-8', status: 'paid' } },
      { ...modelResult, execution: { ...modelResult.execution, delivery: 'local_replay' } },
      { ...modelResult, provenance: { ...modelResult.provenance, trust: 'trusted_control' } },
      { ...modelResult, provenance: { ...modelResult.provenance, observed_at: '2026-07-19T00:00:01Z' } },
    ];
    for (const variant of variants) expect(plain.resultDigest(variant)).not.toBe(base);
  });

  it('gives resultDigestFromCanonical the value of resultDigest on the canonical text', () => {
    const text = canonicalize(modelResult);
    expect(plain.resultDigestFromCanonical(text)).toBe(plain.resultDigest(modelResult));
    expect(keyed.resultDigestFromCanonical(text)).toBe(keyed.resultDigest(modelResult));
    // Non-canonical text of the same value gives a different digest: it will not verify.
    expect(plain.resultDigestFromCanonical(JSON.stringify(modelResult))).not.toBe(plain.resultDigest(modelResult));
  });

  it('separates domains: the same fields under another tag give another digest', () => {
    // digestTagged refuses the reserved tags themselves (see below); the tag is the only difference.
    const fields = { tenant_id: 'acme', subject_id: 'user-42' };
    expect(plain.digestText(canonicalize({ domain: DIGEST_DOMAINS.principalRef, ...fields }))).toBe(plain.principalRef(fields));
    expect(plain.digestTagged('toolseal.principal_ref.v2', fields)).not.toBe(plain.principalRef(fields));
    expect(plain.digestTagged('toolseal.principal_ref.v2', fields)).toBe(sha256(canonicalize({ domain: 'toolseal.principal_ref.v2', ...fields })));
  });

  it('makes keyed digests differ from plain ones and from other keys', () => {
    const otherKey = createDigester({ key: Uint8Array.from({ length: 32 }, (_, index) => index + 1) });
    expect(keyed.keyed).toBe(true);
    expect(plain.keyed).toBe(false);
    expect(keyed.requestDigest(request)).not.toBe(plain.requestDigest(request));
    expect(otherKey.requestDigest(request)).not.toBe(keyed.requestDigest(request));
  });
});

describe('createDigester configuration', () => {
  it(`refuses keys shorter than ${MIN_KEY_BYTES} bytes at construction`, () => {
    expect(() => createDigester({ key: new Uint8Array(31) })).toThrow(RangeError);
    expect(() => createDigester({ key: new Uint8Array(0) })).toThrow(RangeError);
    expect(createDigester({ key: new Uint8Array(64) }).keyed).toBe(true);
  });

  it('refuses a key that is not bytes', () => {
    expect(() => createDigester({ key: 'x'.repeat(32) as unknown as Uint8Array })).toThrow(TypeError);
  });

  it('copies the key, so later changes to the caller’s array change nothing', () => {
    const key = Uint8Array.from(KEY);
    const digester = createDigester({ key });
    const before = digester.principalRef(request);
    key.fill(0);
    expect(digester.principalRef(request)).toBe(before);
    expect(before).toBe(keyed.principalRef(request));
  });

  it.each([
    ['nobleBackend', nobleBackend],
    ['nodeCryptoBackend', nodeCryptoBackend],
  ])('copies a Node Buffer key too (%s): zeroing the caller’s Buffer changes no digest', (_name, backend) => {
    // Expected: the digests under KEY, computed by OpenSSL from the canonical text alone.
    const expected = hmacSha256(KEY, '{"domain":"toolseal.principal_ref.v1","subject_id":"user-42","tenant_id":"acme"}');
    const zeroKeyDigest = hmacSha256(new Uint8Array(32), '{"domain":"toolseal.principal_ref.v1","subject_id":"user-42","tenant_id":"acme"}');
    // A Buffer inside a larger pool, as `Buffer.from` gives: its `slice` is a view, not a copy.
    const key = Buffer.from(KEY);
    const digester = createDigester({ backend, key });
    expect(digester.principalRef(request)).toBe(expected);
    const requestBefore = digester.requestDigest(request);
    key.fill(0);
    expect(digester.principalRef(request)).toBe(expected);
    expect(digester.principalRef(request)).not.toBe(zeroKeyDigest);
    expect(digester.requestDigest(request)).toBe(requestBefore);
    expect(digester.digestText('abc')).toBe(hmacSha256(KEY, 'abc'));
  });

  it('uses the injected backend for every digest', () => {
    const calls: string[] = [];
    const recording: HashBackend = {
      name: 'recording',
      sha256: (data) => {
        calls.push(`sha256:${data.length}`);
        return new Uint8Array(32).fill(0xab);
      },
      hmacSha256: (key, data) => {
        calls.push(`hmac:${key.length}:${data.length}`);
        return new Uint8Array(32).fill(0xcd);
      },
    };
    expect(createDigester({ backend: recording }).digestText('abc')).toBe('ab'.repeat(32));
    expect(createDigester({ backend: recording, key: KEY }).digestText('abcd')).toBe('cd'.repeat(32));
    expect(calls).toEqual(['sha256:3', 'hmac:32:4']);
  });

  it('hashes digest texts through the backend text shortcuts when it has them', () => {
    const texts: string[] = [];
    const withShortcuts: HashBackend = {
      name: 'shortcuts',
      sha256: () => {
        throw new Error('bytes path used');
      },
      hmacSha256: () => {
        throw new Error('bytes path used');
      },
      sha256TextHex: (text) => {
        texts.push(`sha256:${text}`);
        return 'ab'.repeat(32);
      },
      hmacSha256TextHex: (key, text) => {
        texts.push(`hmac:${key.length}:${text}`);
        return 'cd'.repeat(32);
      },
    };
    expect(createDigester({ backend: withShortcuts }).principalRef({ tenant_id: 'acme', subject_id: 'user-42' })).toBe('ab'.repeat(32));
    expect(createDigester({ backend: withShortcuts, key: KEY }).digestText('Zoë 😀')).toBe('cd'.repeat(32));
    expect(texts).toEqual([
      'sha256:{"domain":"toolseal.principal_ref.v1","subject_id":"user-42","tenant_id":"acme"}',
      'hmac:32:Zoë 😀',
    ]);
    // A lone surrogate never reaches a shortcut (it would hash as U+FFFD).
    expect(() => createDigester({ backend: withShortcuts }).digestText('a\udc00')).toThrow(CanonicalizationError);
    expect(texts).toHaveLength(2);
  });

  it('is frozen', () => {
    expect(Object.isFrozen(plain)).toBe(true);
  });
});

describe('digest input errors', () => {
  it('refuses digestText of anything but a string', () => {
    expect(() => plain.digestText(42 as unknown as string)).toThrow(TypeError);
    expect(() => plain.digestText(undefined as unknown as string)).toThrow(TypeError);
  });

  it('rejects text that UTF-8 cannot encode instead of hashing a replacement character', () => {
    expect(() => plain.digestText('a\ud800')).toThrow(CanonicalizationError);
    expect(() => plain.resultDigestFromCanonical('{"x":"\udfff"}')).toThrow(CanonicalizationError);
  });

  it('rejects values that are not plain JSON data, naming the path inside the tagged object', () => {
    const bad = { ...request, arguments: { when: new Date(0) } } as unknown as RequestDigestInput;
    try {
      plain.requestDigest(bad);
      expect.unreachable();
    } catch (error) {
      expect(CanonicalizationError.isInstance(error)).toBe(true);
      expect((error as CanonicalizationError).reason).toBe('unsupported_type');
      expect((error as CanonicalizationError).path).toBe('/arguments/when');
    }
    const missing = { ...call, tool_contract: { ...contract, policy_revision: undefined } } as unknown as CallBindingDigestInput;
    expect(() => plain.callBindingDigest(missing)).toThrow(/unsupported_type/);
  });

  it('refuses a non-enumerable member of digestTagged fields instead of digesting the object without it', () => {
    const fields = Object.defineProperty({ entry: 'e' }, 'previous_hash', { value: 'h', enumerable: false });
    for (const digester of [plain, keyed]) {
      let thrown: unknown;
      try {
        digester.digestTagged('x.v1', fields);
      } catch (error) {
        thrown = error;
      }
      expect(CanonicalizationError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ reason: 'unsupported_type', path: '' });
    }
  });

  it('refuses a domain member in digestTagged fields, an empty domain, and non-plain fields', () => {
    expect(() => plain.digestTagged('x.v1', { domain: 'toolseal.request.v1' })).toThrow(TypeError);
    expect(() => plain.digestTagged('', { a: 1 })).toThrow(TypeError);
    expect(() => plain.digestTagged('x.v1', new Map() as unknown as Record<string, unknown>)).toThrow(CanonicalizationError);
  });
});

describe('digestTagged refuses the domains of the digester’s own digests (fuzzing review)', () => {
  it('throws a TypeError for each reserved tag, plain and keyed, whatever the fields', () => {
    // Else `digestTagged(DIGEST_DOMAINS.result, { model_result })` is a result digest made by any caller.
    for (const digester of [plain, keyed]) {
      for (const domain of Object.values(DIGEST_DOMAINS)) {
        for (const fields of [{ model_result: modelResult }, { tenant_id: 'acme', subject_id: 'user-42' }, {}]) {
          expect(() => digester.digestTagged(domain, fields), domain).toThrow(TypeError);
          expect(() => digester.digestTagged(domain, fields), domain).toThrow(/reserved/);
        }
      }
    }
  });

  it('digests every other tag: the audit chain and genesis tags, and near misses of the reserved ones', () => {
    const fields = { log_id: 'tenant-a' };
    for (const domain of [
      'toolseal.audit_chain.v1',
      'toolseal.audit_chain.v2',
      'toolseal.audit_genesis.v1',
      'toolseal.proposal.v1',
      'toolseal.dispatcher.intent_key.v1',
      'toolseal.result.v2',
      'toolseal.result.v1 ',
      'Toolseal.result.v1',
    ]) {
      const text = canonicalize({ domain, ...fields });
      expect(plain.digestTagged(domain, fields), domain).toBe(sha256(text));
      expect(keyed.digestTagged(domain, fields), domain).toBe(hmacSha256(KEY, text));
    }
  });
});

describe('digestTagged reads each member of fields exactly once (fuzzing review)', () => {
  it('digests the value a getter gave on its only read, when it is not a string', () => {
    for (const digester of [plain, keyed]) {
      let reads = 0;
      const fields = {
        get entry(): unknown {
          reads++;
          return reads === 1 ? { n: 1 } : 'second read';
        },
        previous_hash: 'h',
      };
      const text = '{"domain":"x.v1","entry":{"n":1},"previous_hash":"h"}';
      expect(digester.digestTagged('x.v1', fields)).toBe(digester === plain ? sha256(text) : hmacSha256(KEY, text));
      expect(reads).toBe(1);
    }
  });

  it('reads every member once when a later one sends the digest off the direct path', () => {
    const reads: string[] = [];
    const fields = {};
    for (const [name, value] of [['a', 'x'], ['b', 'y'], ['c', 7], ['d', 'z']] as const) {
      Object.defineProperty(fields, name, {
        enumerable: true,
        get: () => {
          reads.push(name);
          return reads.filter((read) => read === name).length === 1 ? value : 'changed';
        },
      });
    }
    expect(plain.digestTagged('x.v1', fields)).toBe(sha256('{"a":"x","b":"y","c":7,"d":"z","domain":"x.v1"}'));
    expect(reads.sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('refuses a member a getter deleted before it was read, rather than digesting the object without it', () => {
    const fields: Record<string, unknown> = { b: 'y' };
    Object.defineProperty(fields, 'a', {
      enumerable: true,
      configurable: true,
      get: () => {
        delete fields['b'];
        return { n: 1 };
      },
    });
    let thrown: unknown;
    try {
      plain.digestTagged('x.v1', fields);
    } catch (error) {
      thrown = error;
    }
    expect(CanonicalizationError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ reason: 'unsupported_type', path: '/b' });
  });

  it('digests a __proto__ member as an own member, as the spread of the general path did', () => {
    const fields = JSON.parse('{"__proto__":{"x":1},"a":"b"}') as Record<string, unknown>;
    expect(plain.digestTagged('x.v1', fields)).toBe(sha256('{"__proto__":{"x":1},"a":"b","domain":"x.v1"}'));
    const strings = JSON.parse('{"__proto__":"p","a":"b"}') as Record<string, unknown>;
    expect(plain.digestTagged('x.v1', strings)).toBe(sha256('{"__proto__":"p","a":"b","domain":"x.v1"}'));
  });
});

describe('createDigester reads the key through the typed-array intrinsics (fuzzing review)', () => {
  /** A Uint8Array subclass whose listed getters answer what they are given, whatever the view is. */
  function lyingClass(overrides: Record<string, () => unknown>): typeof Uint8Array {
    class Lying extends Uint8Array {}
    for (const [name, get] of Object.entries(overrides)) Object.defineProperty(Lying.prototype, name, { get, configurable: true });
    return Lying;
  }
  const principalText = '{"domain":"toolseal.principal_ref.v1","subject_id":"user-42","tenant_id":"acme"}';

  it(`refuses a key shorter than ${MIN_KEY_BYTES} bytes, an empty one included, whatever its length getters say`, () => {
    const Lying = lyingClass({ length: () => 64, byteLength: () => 64 });
    for (const size of [0, 1, MIN_KEY_BYTES - 1]) {
      expect(() => createDigester({ key: new Lying(size) }), String(size)).toThrow(RangeError);
    }
  });

  it('keys the HMAC with the bytes the key really holds, whatever its buffer, offset or length getters say', () => {
    const Lying = lyingClass({ length: () => 0, byteLength: () => 64, byteOffset: () => 0, buffer: () => new ArrayBuffer(64) });
    const memory = new Uint8Array(48);
    memory.set(KEY, 8);
    for (const backend of [nobleBackend, nodeCryptoBackend]) {
      const digester = createDigester({ backend, key: new Lying(memory.buffer, 8, 32) });
      expect(digester.keyed).toBe(true);
      expect(digester.principalRef(request)).toBe(hmacSha256(KEY, principalText));
    }
  });

  it('refuses what only poses as a Uint8Array with a TypeError', () => {
    const posing = [Object.create(Uint8Array.prototype) as unknown, new Proxy(Uint8Array.from(KEY), {}), new Uint16Array(32), new DataView(new ArrayBuffer(32)), Array.from(KEY)];
    for (const key of posing) expect(() => createDigester({ key: key as Uint8Array })).toThrow(TypeError);
  });

  it('accepts a key from another realm', () => {
    const foreign = runInNewContext('Uint8Array.from({ length: 32 }, (_, index) => index)') as Uint8Array;
    expect(createDigester({ key: foreign }).principalRef(request)).toBe(hmacSha256(KEY, principalText));
  });
});

describe('createDigester refuses misconfigured options (configuration review)', () => {
  it('refuses an unknown option, naming it and the known ones, instead of giving an unkeyed digester', () => {
    expect(() => createDigester({ kee: new Uint8Array(32) } as unknown as DigesterOptions)).toThrow(
      new TypeError('createDigester: unknown option "kee" (known options: backend, key)'),
    );
    expect(() => createDigester({ key: KEY, Backend: nodeCryptoBackend } as unknown as DigesterOptions)).toThrow(/unknown option "Backend"/);
  });

  it('refuses key: undefined (a key that failed to load); only an absent key gives an unkeyed digester', () => {
    expect(() => createDigester({ key: undefined } as unknown as DigesterOptions)).toThrow(TypeError);
    expect(() => createDigester({ backend: nobleBackend, key: undefined } as unknown as DigesterOptions)).toThrow(/key is undefined/);
    expect(createDigester({}).keyed).toBe(false);
    expect(createDigester({ backend: nobleBackend }).keyed).toBe(false);
    expect(createDigester().keyed).toBe(false);
    expect(createDigester({ key: KEY }).keyed).toBe(true);
  });

  // Review 4 §7: `'key' in options` (a Proxy's `has` trap) decided keyed or unkeyed apart from the
  // value read, so a Proxy answering `has: false` over a target holding a key gave an unkeyed digester.
  it('decides keyed or unkeyed from the key it reads, once, never from a separate `in` test', () => {
    let reads = 0;
    const target = { key: KEY };
    const hiding = new Proxy(target, {
      has: () => false,
      get(object, name, receiver) {
        if (name === 'key') reads += 1;
        return Reflect.get(object, name, receiver) as unknown;
      },
    });
    const digester = createDigester(hiding as unknown as DigesterOptions);
    expect(digester.keyed).toBe(true);
    expect(digester.principalRef(request)).toBe(createDigester({ key: KEY }).principalRef(request));
    expect(reads).toBe(1);
    // A Proxy that claims a key (`has: true`) but holds none is unkeyed, as an absent key is; an own
    // enumerable `key` that reads undefined is still refused.
    expect(createDigester(new Proxy({}, { has: () => true }) as unknown as DigesterOptions).keyed).toBe(false);
    expect(() => createDigester(new Proxy({ key: KEY }, { get: () => undefined }) as unknown as DigesterOptions)).toThrow(/key is undefined/);
  });

  it('refuses options that are neither absent nor an object with a TypeError, not a raw property read', () => {
    for (const options of [null, 'key', 32, true, [], () => KEY]) {
      expect(() => createDigester(options as unknown as DigesterOptions), String(options)).toThrow(/^createDigester: options must be an object/);
    }
  });

  it('refuses a backend without the HashBackend functions at creation, not at the first digest', () => {
    const cases: [unknown, RegExp][] = [
      [null, /backend must be a HashBackend object, got null/],
      ['noble', /backend must be a HashBackend object, got a string/],
      [{}, /backend\.sha256 must be a function/],
      [{ name: 'half', sha256: nobleBackend.sha256 }, /backend\.hmacSha256 must be a function/],
      [{ ...nobleBackend, sha256TextHex: 'fast' }, /backend\.sha256TextHex must be a function when present/],
      [{ ...nobleBackend, hmacSha256TextHex: null }, /backend\.hmacSha256TextHex must be a function when present/],
    ];
    for (const [backend, message] of cases) {
      expect(() => createDigester({ backend: backend as HashBackend }), JSON.stringify(backend)).toThrow(message);
      expect(() => createDigester({ backend: backend as HashBackend }), JSON.stringify(backend)).toThrow(TypeError);
    }
    // An explicit `backend: undefined` takes the default, as an absent one does.
    expect(createDigester({ backend: undefined } as unknown as DigesterOptions).digestText('abc')).toBe(sha256('abc'));
  });
});
