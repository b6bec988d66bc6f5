import type { Sha256Hex } from '@toolseal/contracts';
import { guard } from '@toolseal/guard';
export { digest } from '@toolseal/digests';
export const value: Sha256Hex = guard;
