import os from 'node:os';
import { runTransformation, shutdownSandbox } from '../../../shared/sandbox';
import { QuickJsEngine } from '../../../shared/sandbox/engine';
import { savedBytes, writeBack } from '../../../shared/sandbox/snapshot-memory';
import type { SavedMemory } from '../../../shared/sandbox/snapshot-memory';
import { call, events, fromSnapshot, MiB, snapshotting } from '../../support/snapshot-calls';
import type { Call, Job } from '../../support/snapshot-calls';

// Which code keeps a snapshot, and how a snapshot's memory is put back after each invocation.

afterAll(() => shutdownSandbox());

describe('which code keeps a snapshot', () => {
  it('code that loads quickly is snapshotted with the default settings once it loaded twice', async () => {
    const engine = new QuickJsEngine();
    await engine.tidy();
    const spec: Job = { code: `export function transformEvent(e) { return { id: e.messageId }; }`, libraries: [] };
    const results: Call[] = [];
    for (let i = 0; i < 4; i++) results.push(await call(engine, spec));
    expect(results.map((r) => r.cached)).toEqual([false, false, true, true]);
    expect(new Set(results.map((r) => JSON.stringify(r.value))).size).toBe(1);
  });

  it('code that loads quickly takes the place of an idle snapshot only, never of one in use', async () => {
    // However slowly a busy machine loads them, no load counts as slow here.
    const engine = new QuickJsEngine({ maxSnapshots: 1, snapshotIdleRuns: 6, snapshotMinLoadMs: Number.POSITIVE_INFINITY });
    await engine.tidy();
    const [a, b] = ['a', 'b'].map((v): Job => ({ code: `export function transformEvent(e) { return { v: '${v}' }; }`, libraries: [] }));
    const runs = async (spec: Job, n: number) => {
      const cached: boolean[] = [];
      for (let i = 0; i < n; i++) cached.push((await call(engine, spec, [events[0]])).cached);
      return cached;
    };
    expect(await runs(a!, 3)).toEqual([false, false, true]);
    // While a keeps being used, b runs the ordinary way however often it loads.
    for (let i = 0; i < 3; i++) {
      expect(await runs(b!, 2)).toEqual([false, false]);
      expect(await runs(a!, 1)).toEqual([true]);
    }
    // Once a has been idle for snapshotIdleRuns invocations, b takes its place.
    expect(await runs(b!, 7)).toEqual([false, false, false, false, false, false, true]);
    expect(await runs(a!, 1)).toEqual([false]);
    expect(engine.snapshotCount).toBe(1);
  });
});

describe('restoring a snapshot', () => {
  interface Internals {
    snapshots: { values(): IterableIterator<{ memory: SavedMemory; randomState: number; sandbox: { instance: { memory: { buffer: ArrayBuffer } } } }> };
  }

  const specs: Array<[string, Job]> = [
    [
      'globals, prototypes and module state changed',
      {
        code: `
          let counter = 0;
          export function transformEvent(event) {
            globalThis.leaked = event.messageId;
            Object.prototype.polluted = counter++;
            JSON.stringify = () => 'hijacked';
            return { id: event.messageId, counter };
          }`,
      },
    ],
    [
      'megabytes allocated and let go of, the linear memory grown past its initial size',
      {
        code: `
          export function transformEvent(event) {
            const big = new Array(1.5e6).fill(1.5);
            const text = 'x'.repeat(3e6) + event.messageId;
            return { id: event.messageId, n: big.length, t: text.length };
          }`,
      },
    ],
  ];

  it.each(specs)('leaves the memory byte-identical to the capture, but for the reseeded Math.random state (%s)', async (_name, spec) => {
    const engine = await snapshotting();
    await fromSnapshot(engine, spec, events);
    for (let i = 0; i < 2; i++) {
      const again = await call(engine, spec, events);
      expect(again.cached).toBe(true);
      const [snapshot] = [...(engine as unknown as Internals).snapshots.values()];
      const memory = new Uint8Array(snapshot!.sandbox.instance.memory.buffer);
      const expected = new Uint8Array(memory.length);
      expected.set(savedBytes(snapshot!.memory));
      const differing: number[] = [];
      for (let at = 0; at < memory.length; at++) if (memory[at] !== expected[at]) differing.push(at);
      expect(differing.every((at) => at >= snapshot!.randomState && at < snapshot!.randomState + 8)).toBe(true);
    }
  });

  it("knows where this build's heap ends, and keeps only the chunks that were not all zero", async () => {
    const engine = await snapshotting();
    await fromSnapshot(engine, specs[0]![1], events);
    const [snapshot] = [...(engine as unknown as Internals).snapshots.values()];
    expect(snapshot!.memory.heapEnd).toBeDefined();
    const kept = snapshot!.memory.chunks.filter((chunk) => chunk !== undefined).length;
    expect(kept).toBeLessThan(snapshot!.memory.chunks.length / 2);
  });

  describe('writing the memory back', () => {
    const chunk = 64 * 1024;
    const capture = (): { buffer: ArrayBuffer; saved: SavedMemory } => {
      const buffer = new ArrayBuffer(8 * chunk);
      const bytes = new Uint8Array(buffer);
      bytes.fill(7, 0, 100);
      // The heap's end is kept at byte 64 and was at 2 chunks at capture.
      new DataView(buffer).setUint32(64, 2 * chunk, true);
      bytes.fill(9, chunk + 10, chunk + 20);
      return {
        buffer,
        saved: { chunks: [Buffer.from(bytes.slice(0, chunk)), Buffer.from(bytes.slice(chunk, 2 * chunk))], heapEnd: { address: 64, atCapture: 2 * chunk } },
      };
    };

    it('puts back what changed below the heap end and zeroes what was written above the capture', () => {
      const { buffer, saved } = capture();
      const original = new Uint8Array(buffer).slice();
      const bytes = new Uint8Array(buffer);
      bytes.fill(1, 5, 50);
      bytes.fill(3, 3 * chunk, 3 * chunk + 5);
      new DataView(buffer).setUint32(64, 4 * chunk, true);
      // Nothing writes above the heap's end: what is there is not even looked at.
      bytes.fill(4, 6 * chunk, 6 * chunk + 3);
      writeBack(buffer, saved);
      expect(Array.from(bytes.subarray(6 * chunk, 6 * chunk + 4))).toEqual([4, 4, 4, 0]);
      bytes.fill(0, 6 * chunk, 6 * chunk + 3);
      expect(Buffer.from(bytes).equals(Buffer.from(original))).toBe(true);
    });

    it('does not trust a heap end below the one at capture: the whole memory is compared', () => {
      const { buffer, saved } = capture();
      const original = new Uint8Array(buffer).slice();
      const bytes = new Uint8Array(buffer);
      bytes.fill(5, 6 * chunk, 6 * chunk + 3);
      new DataView(buffer).setUint32(64, chunk, true);
      writeBack(buffer, saved);
      expect(Buffer.from(bytes).equals(Buffer.from(original))).toBe(true);
    });
  });
});

describe('through the worker pool, with small code', () => {
  const code = `
    let counter = 0;
    export function transformEvent(event) {
      counter++;
      if (event.spin) while (true) {}
      if (event.bomb) { const a = []; for (;;) a.push(new Array(1e5).fill(1.5)); }
      const out = { id: event.messageId, counter, leaked: typeof globalThis.leaked, proto: ({}).polluted };
      globalThis.leaked = 1;
      Object.prototype.polluted = 'yes';
      return out;
    }`;
  const invoke = (message: Record<string, unknown>) =>
    runTransformation({ code, libraries: [], events: [{ message, metadata: {} }], limits: { deadlineMs: 500, memoryBytes: 48 * MiB } });
  const expected = { id: 'p', counter: 1, leaked: 'undefined' };

  it('every invocation is pristine, before and after limits stop one', async () => {
    const healthy = async () => {
      // Enough calls for every worker to have loaded the code twice and run it from its snapshot.
      for (let i = 0; i < 4 * os.availableParallelism(); i++) {
        expect((await invoke({ messageId: 'p' })).transformedEvents).toEqual([{ transformedEvent: expected, metadata: {} }]);
      }
    };
    await healthy();
    await expect(invoke({ messageId: 's', spin: true })).rejects.toMatchObject({ kind: 'timeout' });
    await healthy();
    await expect(invoke({ messageId: 'b', bomb: true })).rejects.toMatchObject({ kind: 'memory' });
    await healthy();
  }, 60_000);
});
