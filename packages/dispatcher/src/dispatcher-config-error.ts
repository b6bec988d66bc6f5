const MARKER = Symbol.for('toolseal.error.DispatcherConfigError');

/**
 * The dispatcher could not be created: the host's configuration is wrong (a tool without a
 * handler, a registry entry without a tool, an approval policy on a read, a bad deadline...).
 * Thrown by `createDispatcher` at start-up only, never while dispatching.
 */
export class DispatcherConfigError extends Error {
  /** The tool the problem concerns, or `null` for the dispatcher as a whole. */
  readonly toolName: string | null;

  constructor(toolName: string | null, message: string) {
    super(`createDispatcher: ${toolName === null ? message : `tool ${JSON.stringify(toolName)}: ${message}`}`);
    this.name = 'DispatcherConfigError';
    this.toolName = toolName;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a `DispatcherConfigError` from any copy of this package. */
  static isInstance(value: unknown): value is DispatcherConfigError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
