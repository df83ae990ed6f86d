import type { SandboxErrorKind } from './errors';
import type { SandboxLimits } from './limits';

export interface SandboxLibrary {
  importName: string;
  name: string;
  code: string;
}

/**
 * One invocation as the engine sees it. `input` is the events array in QuickJS's binary object format
 * (see bjson.ts), or its JSON text when the host could not encode it as plain data.
 */
export interface EngineRunJob {
  code: string;
  name: string;
  libraries: SandboxLibrary[];
  input: string | Uint8Array;
  testMode: boolean;
  limits: SandboxLimits;
  /** Raw `WEIR_OUTBOUND_ALLOWLIST` value, read by the caller at call time. */
  allowlist: string;
  /** What getCredential(key) answers in this invocation. */
  credentials?: Record<string, string>;
}

export interface EngineCheckJob {
  library: SandboxLibrary;
  limits: SandboxLimits;
  allowlist: string;
}

export type EngineOutcome =
  /** output: the result as JSON text, or in QuickJS's binary format when that is exactly the same value. */
  { ok: true; output: string | Uint8Array } | { ok: false; kind: SandboxErrorKind; message: string };

export type WorkerRequest =
  | ({ id: number; op: 'run' } & EngineRunJob)
  | ({ id: number; op: 'check' } & EngineCheckJob)
  /** Take the snapshot the last reply said was waiting (wantsCapture); the worker says ready when done. */
  | { op: 'capture' };

export type WorkerMessage =
  | { op: 'ready' }
  | { op: 'startup-failed'; message: string }
  /** Sent from inside a running invocation the moment it hits the memory cap. */
  | { op: 'memory-exhausted' }
  | ({ op: 'reply'; id: number; recycling: boolean; wantsCapture: boolean } & EngineOutcome);
