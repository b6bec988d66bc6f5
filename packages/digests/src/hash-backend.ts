import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The SHA-256 primitives the digests are built on. Inject one into `createDigester` to use a
 * platform implementation; every backend must give byte-identical results.
 */
export interface HashBackend {
  /** Short name for logs and benchmarks, e.g. `noble` or `node-crypto`. */
  readonly name: string;
  /** SHA-256 of `data` (32 bytes). */
  sha256(data: Uint8Array): Uint8Array;
  /** HMAC-SHA-256 (RFC 2104) of `data` under `key` (32 bytes). */
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array;
  /**
   * Optional shortcut: the lowercase hex SHA-256 of the UTF-8 encoding of `text`, for a platform
   * that hashes a string without a separate encoding step. It must equal `sha256` over
   * `new TextEncoder().encode(text)`, in hex. The digester calls it only with text free of lone
   * surrogates, and uses `sha256` when it is absent.
   */
  sha256TextHex?(text: string): string;
  /** Optional shortcut: `hmacSha256` over the UTF-8 encoding of `text`, in lowercase hex (same rules). */
  hmacSha256TextHex?(key: Uint8Array, text: string): string;
}

/**
 * The default backend: `@noble/hashes`, audited pure JavaScript that runs in every runtime. It has
 * no text shortcut: the digester encodes text with `TextEncoder` first.
 */
export const nobleBackend: HashBackend = {
  name: 'noble',
  sha256: (data) => sha256(data),
  hmacSha256: (key, data) => hmac(sha256, key, data),
};
