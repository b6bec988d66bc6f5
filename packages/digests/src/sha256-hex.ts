import type { Sha256Hex } from '@toolseal/contracts';

// 1 for every UTF-16 code unit that is not a lowercase hex digit. One table load per character and
// no branch that depends on the data: the regular expression `/^[0-9a-f]+$/` branches on digit
// against letter at every character, which a random digest mispredicts about half the time
// (280 against 120 ns a digest on a Xeon; `/^[0-9a-f]{64}$/` took 370 ns). Digests are checked
// several times per call.
const NOT_HEX = new Uint8Array(0x10000).fill(1);
for (const digit of '0123456789abcdef') NOT_HEX[digit.charCodeAt(0)] = 0;

/** True when `value` has the shape of a digest: 64 lowercase hex characters. Shape proves nothing about its origin; recompute and compare with `constantTimeEqual`. */
export function isSha256Hex(value: unknown): value is Sha256Hex {
  if (typeof value !== 'string' || value.length !== 64) return false;
  let notHex = 0;
  for (let index = 0; index < 64; index++) notHex |= NOT_HEX[value.charCodeAt(index)] as number;
  return notHex === 0;
}
