import { parentPort } from 'node:worker_threads';
import { QuickJsEngine } from './engine';
import { DEFAULT_LIMITS } from './limits';
import type { EngineOutcome, WorkerMessage, WorkerRequest } from './protocol';

// Worker-thread side of the sandbox pool: one invocation at a time, so the pool's watchdog can
// terminate this thread when a long native call ignores QuickJS's interrupt handler.

const port = parentPort;
if (!port) throw new Error('the sandbox worker must run in a worker thread');

function post(message: WorkerMessage): void {
  // A binary result is handed over rather than copied.
  const output = message.op === 'reply' && message.ok ? message.output : undefined;
  port!.postMessage(message, typeof output === 'object' ? [output.buffer as ArrayBuffer] : []);
}

const engine = new QuickJsEngine({ onMemoryExhausted: () => post({ op: 'memory-exhausted' }) });

async function warmUp(): Promise<void> {
  await engine.tidy(DEFAULT_LIMITS.memoryBytes);
  // The first run pays for lazy compilation of the WebAssembly code paths; do it before real work.
  await engine.run({
    code: 'export function transformEvent(event) { log(event); return event; }',
    name: 'warm-up',
    libraries: [],
    input: '[{"message":{"messageId":"w"}}]',
    testMode: true,
    limits: DEFAULT_LIMITS,
    allowlist: '',
  });
  await engine.tidy(DEFAULT_LIMITS.memoryBytes);
  await engine.probeBinaryInput();
  await engine.probeBinaryOutput();
  // Before any code is snapshotted, so its first snapshot does not pay for this.
  await engine.locateHeapEnd();
}

async function ready(preparation: Promise<void>): Promise<void> {
  try {
    await preparation;
    post({ op: 'ready' });
  } catch (err) {
    post({ op: 'startup-failed', message: (err as Error)?.message ?? String(err) });
  }
}

async function handle(request: WorkerRequest): Promise<void> {
  if (request.op === 'capture') {
    await ready(engine.capturePending());
    return;
  }
  let outcome: EngineOutcome;
  try {
    outcome = request.op === 'run' ? await engine.run(request) : await engine.check(request);
  } catch (err) {
    outcome = { ok: false, kind: 'runtime', message: `sandbox engine failure: ${(err as Error).message}` };
  }
  // A replacement instance takes milliseconds; the pool holds further work until this worker is ready.
  // So does a snapshot, which the pool asks for (op 'capture') when no request would wait for it.
  const recycling = engine.needsFreshInstance;
  post({ op: 'reply', id: request.id, recycling, wantsCapture: engine.wantsCapture, ...outcome });
  // Releasing this sandbox and preparing the next one happen after the reply, off the caller's clock.
  const tidied = engine.tidy(request.limits.memoryBytes, false);
  if (recycling) await ready(tidied);
  else await tidied.catch((err: unknown) => post({ op: 'startup-failed', message: (err as Error)?.message ?? String(err) }));
}

// Requests are sent only after this worker said it is ready, one at a time; the chain keeps that
// order even if a message arrives early.
let chain: Promise<void> = ready(warmUp());
port.on('message', (request: WorkerRequest) => {
  chain = chain.then(() => handle(request));
});
