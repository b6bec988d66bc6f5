import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

const shared = sharedTestConfig(import.meta.dirname);

// The fixture trees contain files named like tests; they are inputs to the checker, not tests.
export default defineConfig({
  ...shared,
  test: { ...shared.test, exclude: ['**/node_modules/**', 'src/__fixtures__/**'] },
});
