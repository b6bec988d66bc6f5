import fc from 'fast-check';
import { readFileSync } from 'fs';
export const sample = fc.sample(fc.string(), 1).join('') + readFileSync.name;
