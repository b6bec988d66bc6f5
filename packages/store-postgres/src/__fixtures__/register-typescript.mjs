// Test-only: `node --import ./register-typescript.mjs child.ts` runs TypeScript sources.
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
