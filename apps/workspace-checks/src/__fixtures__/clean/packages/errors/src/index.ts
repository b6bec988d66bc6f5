export type { Sha256Hex } from '@toolseal/contracts';
export { makeError } from './make-error.js';
