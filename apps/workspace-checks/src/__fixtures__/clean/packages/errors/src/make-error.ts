import type { Sha256Hex } from '@toolseal/contracts';
export function makeError(digest: Sha256Hex): string {
  return digest;
}
