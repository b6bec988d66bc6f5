import type { JsonValue } from '@toolseal/contracts';
import fc from 'fast-check';
import { nodeCryptoBackend as fromSubpath } from '@toolseal/digests/node';
import { describe, expect, it } from 'vitest';
import { createDigester } from './digester.js';
import { nobleBackend } from './hash-backend.js';
import { nodeCryptoBackend } from './node.js';

const plainNoble = createDigester({ backend: nobleBackend });
const plainNode = createDigester({ backend: nodeCryptoBackend });

const text = fc.string({ unit: 'binary', maxLength: 40 });
// fast-check's JsonValue allows optional members; a JSON round trip gives the contracts' type.
const json = fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }).map((value) => JSON.parse(JSON.stringify(value)) as JsonValue);
const contract = fc.record({
  tool_name: text,
  effect: fc.constantFrom('read' as const, 'write' as const),
  input_revision: text,
  output_revision: text,
  effect_revision: text,
  handler_revision: text,
  producer_revision: text,
  policy_revision: text,
});

describe('nodeCryptoBackend and nobleBackend', () => {
  it('is what the @toolseal/digests/node subpath exports', () => {
    expect(fromSubpath).toBe(nodeCryptoBackend);
    expect(fromSubpath.name).toBe('node-crypto');
  });

  it('give identical SHA-256 and HMAC-SHA-256 over random bytes and keys', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 200 }), (data, key) => {
        expect(nodeCryptoBackend.sha256(data)).toEqual(nobleBackend.sha256(data));
        expect(nodeCryptoBackend.hmacSha256(key, data)).toEqual(nobleBackend.hmacSha256(key, data));
      }),
    );
  });

  it('hashes text directly exactly as it hashes the UTF-8 bytes (the optional text shortcuts)', () => {
    const { sha256TextHex, hmacSha256TextHex } = nodeCryptoBackend;
    if (sha256TextHex === undefined || hmacSha256TextHex === undefined) throw new Error('node backend lost its text shortcuts');
    const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
    // Well-formed text only (the digester never passes anything else): full Unicode, escapes, astral.
    const wellFormed = fc.string({ unit: 'binary', maxLength: 300 });
    fc.assert(
      fc.property(wellFormed, fc.uint8Array({ minLength: 1, maxLength: 100 }), (value, key) => {
        const bytes = new TextEncoder().encode(value);
        expect(sha256TextHex(value)).toBe(hex(nobleBackend.sha256(bytes)));
        expect(hmacSha256TextHex(key, value)).toBe(hex(nobleBackend.hmacSha256(key, bytes)));
      }),
    );
    expect(sha256TextHex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(nobleBackend.sha256TextHex).toBeUndefined();
  });

  it('give identical digests of every kind over random JSON values, plain and under random HMAC keys', () => {
    fc.assert(
      fc.property(
        fc.record({ tenant_id: text, subject_id: text, tool_name: text, arguments: json }),
        fc.dictionary(text, json, { maxKeys: 5 }),
        contract,
        fc.uint8Array({ minLength: 32, maxLength: 96 }),
        (request, fields, toolContract, key) => {
          const input = { ...request, input_revision: 'i', output_revision: 'o', effect_revision: 'e' };
          const call = {
            provider: 'p',
            api_family: 'f',
            response_id: request.tenant_id,
            call_id: request.subject_id,
            operation_id: 'op',
            idempotency_key: null,
            adapter_revision: 'a',
            tool_contract: toolContract,
            request_sha256: plainNoble.requestDigest(input),
            result_sha256: plainNoble.digestText(request.tool_name),
          };
          const keyedNoble = createDigester({ backend: nobleBackend, key });
          const keyedNode = createDigester({ backend: nodeCryptoBackend, key });
          for (const [noble, node] of [
            [plainNoble, plainNode],
            [keyedNoble, keyedNode],
          ] as const) {
            expect(node.principalRef(request)).toBe(noble.principalRef(request));
            expect(node.requestDigest(input)).toBe(noble.requestDigest(input));
            expect(node.digestTagged('random.v1', fields)).toBe(noble.digestTagged('random.v1', fields));
            expect(node.callBindingDigest(call)).toBe(noble.callBindingDigest(call));
            expect(node.digestText(request.tool_name)).toBe(noble.digestText(request.tool_name));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
