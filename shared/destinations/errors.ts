/**
 * A destination transform refused an event or its configuration. `kind` follows the reference product's
 * classes: a configuration error is the destination's fault, an instrumentation error the event's.
 * Both are final: sending the same event again cannot succeed.
 */
export class DestinationError extends Error {
  override readonly name = 'DestinationError';
  constructor(
    message: string,
    readonly kind: 'configuration' | 'instrumentation' = 'instrumentation',
  ) {
    super(message);
  }
}

export const configurationError = (message: string) => new DestinationError(message, 'configuration');
export const instrumentationError = (message: string) => new DestinationError(message, 'instrumentation');

/**
 * Whether a transform's error is a DestinationError, by name: each type's code is bundled on its own with its own
 * copy of this class (registry.ts), so `instanceof` would tell only the function's own copy.
 */
export const isDestinationError = (error: unknown): error is DestinationError => error instanceof Error && error.name === 'DestinationError';
