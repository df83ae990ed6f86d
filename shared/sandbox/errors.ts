export type SandboxErrorKind = 'compile' | 'import' | 'contract' | 'timeout' | 'memory' | 'output' | 'runtime';

/** A failure of a whole invocation (as opposed to one event's error, which is part of the result). */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  constructor(
    readonly kind: SandboxErrorKind,
    message: string,
  ) {
    super(message);
  }
}
