import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local';

/**
 * The DynamoDB Local a test file's runtime uses: each jest worker starts its own (in memory) and starts a fresh one
 * after FILES_PER_STORE test files have used it. DynamoDB Local keeps every stream record (deleting a table does
 * not remove them) and its writes to a table with a stream slow down with all it holds, measured: a put took 7 ms
 * on a fresh store and 65 ms after 75,000 stream records, and two test files that took 21 s took 246 s. Renewing
 * it costs about 3 s of one core each time.
 *
 * A worker's store outlives the test file that started it (the next files reuse it), so it is recorded in the
 * run's folder (WEIR_TEST_STORES_DIR, made by global-setup.ts), and global-teardown.ts ends every store there.
 * A run given one store in WEIR_TEST_DYNAMODB_ENDPOINT uses that store throughout.
 */
const FILES_PER_STORE = 4;

interface WorkerStore {
  endpoint: string;
  /** DynamoDB Local's process (the JVM). */
  pid: number;
  files: number;
}

/** This test file's store (module state lives as long as one test file). */
let mine: Promise<string> | undefined;

export function testStoreEndpoint(): Promise<string> {
  mine ??= storeForThisFile();
  return mine;
}

async function storeForThisFile(): Promise<string> {
  const given = process.env.WEIR_TEST_DYNAMODB_ENDPOINT;
  const dir = process.env.WEIR_TEST_STORES_DIR;
  if (given && !dir) return given;
  if (!dir) throw new Error('WEIR_TEST_STORES_DIR is not set (jest globalSetup makes it)');
  const record = path.join(dir, `${process.pid}.json`);
  let store = readStore(record);
  if (!store || store.files >= FILES_PER_STORE) {
    if (store) endStore(store.pid);
    endStoresOfGoneWorkers(dir);
    const started = await startDynamoDbLocal();
    // Not this file's: later files of the worker use it, and teardown (or its replacement) ends it.
    started.process.unref();
    (started.process.stderr as { unref?: () => void } | null)?.unref?.();
    store = { endpoint: started.endpoint, pid: started.process.pid ?? 0, files: 0 };
  }
  store.files++;
  writeFileSync(record, JSON.stringify(store));
  // Code that reads the store's address from the environment (clients a test builds) finds this one.
  process.env.WEIR_TEST_DYNAMODB_ENDPOINT = store.endpoint;
  return store.endpoint;
}

/** Every store recorded in the run's folder, by the worker that started it. */
export function recordedStores(dir: string): { worker: number; store: WorkerStore }[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      const store = readStore(path.join(dir, name));
      return store ? [{ worker: Number(name.slice(0, -'.json'.length)), store }] : [];
    });
}

export function endStore(pid: number): void {
  try {
    // In memory: nothing to keep, so no orderly stop (it ignores SIGTERM, see dynamodb-local.ts).
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A worker replaced by jest (over its memory limit) leaves its store: the next store started ends it. */
function endStoresOfGoneWorkers(dir: string): void {
  for (const { worker, store } of recordedStores(dir)) {
    if (worker === process.pid || alive(worker)) continue;
    endStore(store.pid);
    writeFileSync(path.join(dir, `${worker}.json`), 'ended');
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readStore(file: string): WorkerStore | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as WorkerStore;
  } catch {
    return undefined;
  }
}
