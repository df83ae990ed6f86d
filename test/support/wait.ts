import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** How long to keep reading before failing (default 15 s). */
  timeoutMs?: number;
  /** The pause between readings (default 100 ms); a `read` that drives the pipeline itself may want none. */
  everyMs?: number;
}

const shown = (value: unknown) => {
  const text = value === undefined ? 'nothing' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
};

/**
 * Reads until `done` holds of the reading (by default: until it is truthy) and answers that reading; after
 * `timeoutMs`, fails naming what it waited for and what it read last. Every test that waits on the pipeline, a
 * server or a page's data waits through this.
 */
export async function waitFor<T>(what: string, read: () => T | Promise<T>, done: (value: T) => boolean = Boolean, options: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 15_000, everyMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs / 1000} s for ${what}; read ${shown(value)}`);
    if (everyMs > 0) await sleep(everyMs);
  }
}
