import { describe, expect, it } from 'vitest';
import { nobleBackend, type HashBackend } from './hash-backend.js';
import { nodeCryptoBackend } from './node.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

// Known answers from the standards, so neither backend is only checked against the other.
describe.each<[string, HashBackend]>([
  ['noble', nobleBackend],
  ['node-crypto', nodeCryptoBackend],
])('%s backend', (_name, backend) => {
  it('computes SHA-256 known answers (FIPS 180-2 examples)', () => {
    expect(hex(backend.sha256(ascii('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(backend.sha256(new Uint8Array(0)))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(backend.sha256(ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('computes HMAC-SHA-256 known answers (RFC 4231 test cases 1 and 6)', () => {
    expect(hex(backend.hmacSha256(new Uint8Array(20).fill(0x0b), ascii('Hi There')))).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    );
    expect(
      hex(backend.hmacSha256(new Uint8Array(131).fill(0xaa), ascii('Test Using Larger Than Block-Size Key - Hash Key First'))),
    ).toBe('60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54');
  });

  it('returns a plain 32-byte Uint8Array', () => {
    const digest = backend.sha256(ascii('x'));
    expect(digest).toBeInstanceOf(Uint8Array);
    expect(digest.length).toBe(32);
    expect(Object.getPrototypeOf(digest)).toBe(Uint8Array.prototype);
  });
});
