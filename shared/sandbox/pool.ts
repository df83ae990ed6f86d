import { Worker } from 'node:worker_threads';
import { SandboxError } from './errors';
import { limitMessages, WORKER_STACK_MB } from './limits';
import type { SandboxLimits } from './limits';
import type { EngineCheckJob, EngineOutcome, EngineRunJob, WorkerMessage, WorkerRequest } from './protocol';
import { sandboxWorkerLaunch } from './worker-entry';

/** Time past the deadline after which the host stops waiting and terminates the worker. */
export const WATCHDOG_GRACE_MS = 25;
/** Time a worker that reported memory exhaustion gets to report the failure itself before it is stopped. */
export const MEMORY_GRACE_MS = 50;
/**
 * Time past the deadline a worker gets to get ready again after an invocation (a new instance, or a
 * snapshot, whose module evaluation runs under the invocation's deadline) before it is replaced.
 */
export const PREPARE_GRACE_MS = 2000;
const MAX_STARTUP_FAILURES = 3;

type JobRequest = ({ op: 'run' } & EngineRunJob) | ({ op: 'check' } & EngineCheckJob);

interface Job {
  id: number;
  request: JobRequest;
  limits: SandboxLimits;
  resolve: (outcome: EngineOutcome) => void;
  reject: (err: Error) => void;
}

class PooledWorker {
  ready = false;
  retired = false;
  job?: Job;
  jobStarted = 0;
  memoryExhausted = false;
  watchdog?: NodeJS.Timeout;
  constructor(readonly worker: Worker) {}
}

/**
 * A small pool of sandbox worker threads, created lazily and unref'd so they never keep a process
 * alive. Each worker runs one invocation at a time under a watchdog: a worker that overruns its
 * deadline by more than the grace period is terminated (the only way to stop a long native call inside
 * QuickJS) and replaced.
 */
export class SandboxPool {
  private readonly workers = new Set<PooledWorker>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private startupFailures = 0;
  private stopped = false;

  constructor(private readonly size: number) {}

  submit(request: JobRequest): Promise<EngineOutcome> {
    if (this.stopped) return Promise.reject(new SandboxError('runtime', 'the sandbox was shut down'));
    return new Promise<EngineOutcome>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, request, limits: request.limits, resolve, reject });
      this.pump();
    });
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    const stopped = new SandboxError('runtime', 'the sandbox was shut down');
    for (const job of this.queue.splice(0)) job.reject(stopped);
    const terminations: Promise<unknown>[] = [];
    for (const pooled of [...this.workers]) {
      if (pooled.job) pooled.job.reject(stopped);
      terminations.push(this.retire(pooled));
    }
    await Promise.allSettled(terminations);
  }

  private pump(): void {
    for (const pooled of this.workers) {
      if (this.queue.length === 0) break;
      if (pooled.ready && !pooled.job && !pooled.retired) this.assign(pooled, this.queue.shift()!);
    }
    // Workers that are starting or recycling will take queued jobs when they report ready.
    let coming = [...this.workers].filter((pooled) => !pooled.ready && !pooled.job).length;
    while (this.queue.length > coming && this.workers.size < this.size) {
      this.spawn();
      coming++;
    }
    // Unref'd workers must not let the process exit while work is waiting for them.
    for (const pooled of this.workers) {
      if (pooled.job || (this.queue.length > 0 && !pooled.ready)) pooled.worker.ref();
      else pooled.worker.unref();
    }
  }

  private spawn(): void {
    const launch = sandboxWorkerLaunch();
    const worker = new Worker(launch.script, {
      eval: launch.eval,
      execArgv: [],
      resourceLimits: { stackSizeMb: WORKER_STACK_MB },
    });
    worker.unref();
    const pooled = new PooledWorker(worker);
    this.workers.add(pooled);
    worker.on('message', (message: WorkerMessage) => this.onMessage(pooled, message));
    worker.on('error', (err) => this.onCrash(pooled, `sandbox worker crashed: ${err.message}`));
    worker.on('exit', (code) => this.onCrash(pooled, `sandbox worker exited with code ${code}`));
  }

  private assign(pooled: PooledWorker, job: Job): void {
    pooled.job = job;
    pooled.jobStarted = performance.now();
    pooled.memoryExhausted = false;
    pooled.worker.ref();
    pooled.watchdog = setTimeout(() => this.onWatchdog(pooled), job.limits.deadlineMs + WATCHDOG_GRACE_MS);
    const message: WorkerRequest = { id: job.id, ...job.request };
    // Binary input is handed over rather than copied.
    const input = message.op === 'run' ? message.input : undefined;
    pooled.worker.postMessage(message, typeof input === 'object' ? [input.buffer as ArrayBuffer] : []);
  }

  private onMessage(pooled: PooledWorker, message: WorkerMessage): void {
    if (pooled.retired) return;
    if (message.op === 'ready') {
      clearTimeout(pooled.watchdog);
      pooled.ready = true;
      this.startupFailures = 0;
      this.pump();
      return;
    }
    if (message.op === 'startup-failed') {
      this.onStartupFailure(pooled, message.message);
      return;
    }
    if (message.op === 'memory-exhausted') {
      // A guest that catches the out-of-memory error may stall in slow native retries (each
      // allocation attempt runs a full GC) long before its next interrupt check: do not wait for the deadline.
      const job = pooled.job;
      if (!job || pooled.memoryExhausted) return;
      pooled.memoryExhausted = true;
      const untilDeadline = pooled.jobStarted + job.limits.deadlineMs + WATCHDOG_GRACE_MS - performance.now();
      if (untilDeadline > MEMORY_GRACE_MS) {
        clearTimeout(pooled.watchdog);
        pooled.watchdog = setTimeout(() => this.onWatchdog(pooled), MEMORY_GRACE_MS);
      }
      return;
    }
    const job = pooled.job;
    if (!job || job.id !== message.id) return;
    clearTimeout(pooled.watchdog);
    pooled.job = undefined;
    const capturing = !message.recycling && message.wantsCapture && this.mayCapture(pooled);
    if (capturing) pooled.worker.postMessage({ op: 'capture' } satisfies WorkerRequest);
    if (message.recycling || capturing) {
      pooled.ready = false;
      // Preparing the next sandbox runs guest code too; a stall there must not hold the worker forever.
      pooled.watchdog = setTimeout(() => this.onWatchdog(pooled), job.limits.deadlineMs + PREPARE_GRACE_MS);
      // Queued work keeps the process alive through the worker; this timer alone must not.
      pooled.watchdog.unref();
    }
    const { op: _op, id: _id, recycling: _recycling, wantsCapture: _wantsCapture, ...outcome } = message;
    job.resolve(outcome);
    this.pump();
  }

  /**
   * Whether `pooled` may take a snapshot now (milliseconds during which it takes no work): only when no
   * work waits and another worker is ready for what comes next, or it is the only worker. A worker
   * that may not asks again after its next invocation.
   */
  private mayCapture(pooled: PooledWorker): boolean {
    if (this.queue.length > 0) return false;
    return this.workers.size === 1 || [...this.workers].some((other) => other !== pooled && other.ready && !other.job && !other.retired);
  }

  private onWatchdog(pooled: PooledWorker): void {
    const job = pooled.job;
    void this.retire(pooled);
    if (job) {
      job.reject(
        pooled.memoryExhausted ? new SandboxError('memory', limitMessages.memory(job.limits)) : new SandboxError('timeout', limitMessages.timeout(job.limits)),
      );
    }
    // Replace the terminated worker at once, so the next invocation does not pay for the start, but
    // after the caller has been told: creating a worker blocks this thread for a moment.
    setImmediate(() => {
      if (this.workers.size < this.size && !this.stopped) this.spawn();
      this.pump();
    });
  }

  private onStartupFailure(pooled: PooledWorker, reason: string): void {
    void this.retire(pooled);
    if (pooled.job) pooled.job.reject(new SandboxError('runtime', reason));
    if (!pooled.ready) this.startupFailures++;
    if (this.startupFailures >= MAX_STARTUP_FAILURES) {
      this.startupFailures = 0;
      const failure = new SandboxError('runtime', `the sandbox worker failed to start: ${reason}`);
      for (const job of this.queue.splice(0)) job.reject(failure);
      return;
    }
    this.pump();
  }

  private onCrash(pooled: PooledWorker, reason: string): void {
    if (pooled.retired) return;
    this.onStartupFailure(pooled, reason);
  }

  private retire(pooled: PooledWorker): Promise<number> {
    pooled.retired = true;
    clearTimeout(pooled.watchdog);
    this.workers.delete(pooled);
    return pooled.worker.terminate().catch(() => -1);
  }
}
