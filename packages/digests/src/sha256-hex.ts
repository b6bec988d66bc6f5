import type { Sha256Hex } from '@toolseal/contracts';

// The length first, then one class repeated: `/^[0-9a-f]{64}$/` measured twice the time of both
// (about 110 against 50 ns a digest), and digests are checked several times per call.
const HEX = /^[0-9a-f]+$/;

/** True when `value` has the shape of a digest: 64 lowercase hex characters. Shape proves nothing about its origin; recompute and compare with `constantTimeEqual`. */
export function isSha256Hex(value: unknown): value is Sha256Hex {
  return typeof value === 'string' && value.length === 64 && HEX.test(value);
}
