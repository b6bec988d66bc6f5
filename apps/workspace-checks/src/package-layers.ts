/**
 * The layer of every publishable package under `packages/`, lowest first, kept in step with the
 * diagram in the top-level README's "Layers" section (a package may depend only on packages in a
 * lower layer: never sideways, never upward). A package that is not listed here fails the
 * workspace check until it is given a layer.
 */
export const PACKAGE_LAYERS: Readonly<Record<string, number>> = {
  '@toolseal/contracts': 0,
  '@toolseal/errors': 1,
  '@toolseal/digests': 1,
  '@toolseal/guard': 2,
  '@toolseal/proposal': 3,
  '@toolseal/result': 3,
  '@toolseal/audit': 3,
  '@toolseal/adapter-core': 3,
  '@toolseal/store-sqlite': 4,
  '@toolseal/store-postgres': 4,
  '@toolseal/adapter-openai': 4,
  '@toolseal/adapter-anthropic': 4,
  '@toolseal/adapter-gemini': 4,
  '@toolseal/adapter-testing': 4,
  '@toolseal/dispatcher': 5,
};

/** The npm scope of every workspace package. */
export const WORKSPACE_SCOPE = '@toolseal/';

/**
 * Packages a test file may import without declaring them: the test runner the workspace root
 * provides. Everything else a test imports must be in its package's devDependencies.
 */
export const WORKSPACE_TEST_TOOLS: readonly string[] = ['vitest'];
