import type { Sha256Hex } from '@toolseal/contracts';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** True when `value` has the shape of a digest: 64 lowercase hex characters. Shape proves nothing about its origin; recompute and compare with `constantTimeEqual`. */
export function isSha256Hex(value: unknown): value is Sha256Hex {
  return typeof value === 'string' && SHA256_HEX.test(value);
}
