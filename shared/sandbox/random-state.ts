import { randomFillSync } from 'node:crypto';
import type { QuickJSContext } from 'quickjs-emscripten-core';
import type { ContextInternals } from './quickjs-internals';
import type { WasmInstance } from './wasm-instance';

// Math.random's state inside a context's linear memory, which a restored snapshot must not replay.

const MASK_64 = (1n << 64n) - 1n;

/** QuickJS's Math.random: xorshift64* on the context's state; returns the next state and the number. */
function nextRandom(state: bigint): [bigint, number] {
  let x = state;
  x ^= x >> 12n;
  x ^= (x << 25n) & MASK_64;
  x ^= x >> 27n;
  return [x, Number(((x * 0x2545f4914f6cdd1dn) & MASK_64) >> 12n) / 2 ** 52];
}

/** A fresh non-zero seed, so restored contexts do not all replay the captured Math.random sequence. */
function randomSeed(): bigint {
  const bytes = randomFillSync(new Uint8Array(8));
  const seed = new DataView(bytes.buffer).getBigUint64(0, true);
  return seed === 0n ? 1n : seed;
}

export function reseed(instance: WasmInstance, address: number): void {
  new DataView(instance.memory.buffer).setBigUint64(address, randomSeed(), true);
}

/** Finds the Math.random state of contexts of this build (one per engine, since the offset is cached). */
export class RandomStateLocator {
  /**
   * Offset of Math.random's state inside QuickJS's context struct: found and checked once, since it is
   * fixed by the build. `null` when it could not be found; snapshots are then not used at all.
   */
  private offset?: number | null;

  /** True once the state could not be found: snapshots are off. */
  get failed(): boolean {
    return this.offset === null;
  }

  /**
   * Address of the context's Math.random state. QuickJS keeps it in its context struct, whose layout
   * the build fixes: the offset is found once, by the 8 bytes that step exactly as xorshift64* while
   * Math.random() runs, and confirmed by seeding it and predicting the next number. Undefined when that
   * fails, which turns snapshots off (restored contexts would all replay one sequence).
   */
  address(ctx: QuickJSContext, instance: WasmInstance): number | undefined {
    if (this.offset === null) return undefined;
    const base = (ctx as unknown as ContextInternals).ctx.value;
    const random = (): number => ctx.unwrapResult(ctx.evalCode('Math.random()')).consume((h) => ctx.getNumber(h));
    const memory = (): DataView => new DataView(instance.memory.buffer);
    let offset = this.offset;
    if (offset === undefined) {
      const window = 2048;
      const before = new DataView(instance.memory.buffer.slice(base, base + window));
      const value = random();
      const after = memory();
      const found: number[] = [];
      for (let at = 0; at + 8 <= window; at += 4) {
        const [next, predicted] = nextRandom(before.getBigUint64(at, true));
        if (next === after.getBigUint64(base + at, true) && predicted === value) found.push(at);
      }
      offset = found.length === 1 ? found[0]! : undefined;
    }
    let confirmed = offset !== undefined;
    if (offset !== undefined) {
      const seed = randomSeed();
      memory().setBigUint64(base + offset, seed, true);
      const [next, predicted] = nextRandom(seed);
      confirmed = random() === predicted && memory().getBigUint64(base + offset, true) === next;
    }
    this.offset = confirmed ? offset : null;
    return confirmed ? base + offset! : undefined;
  }
}
