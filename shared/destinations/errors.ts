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
