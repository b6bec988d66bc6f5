import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

const shared = sharedTestConfig(import.meta.dirname);

// The test packs every package, installs from the npm registry and runs tsc over the shipped
// declarations: minutes on a slow machine with a cold npm cache, not the shared 30 s. The files
// in src/__fixtures__ run inside the consumer project, never here.
export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    exclude: ['**/node_modules/**', 'src/__fixtures__/**'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
