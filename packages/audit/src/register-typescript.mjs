// Test support: `node --import ./register-typescript.mjs child.ts` runs TypeScript sources (see child-process.ts).
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
