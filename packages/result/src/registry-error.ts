const MARKER = Symbol.for('toolseal.error.RegistryError');

/**
 * A tool registry could not be built: the host's configuration is wrong. Thrown at start-up only,
 * never while sealing or verifying.
 */
export class RegistryError extends Error {
  /** The tool the problem concerns, or `null` for the registry as a whole. */
  readonly toolName: string | null;

  constructor(toolName: string | null, message: string) {
    super(toolName === null ? message : `tool ${JSON.stringify(toolName)}: ${message}`);
    this.name = 'RegistryError';
    this.toolName = toolName;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a `RegistryError` from any copy of this package. */
  static isInstance(value: unknown): value is RegistryError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
