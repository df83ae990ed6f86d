import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startCommitBarrier } from './commit-barrier';

/**
 * DynamoDB Local, the Java jar shipped inside the npm package amplify-dynamodb-simulator (its other
 * dependencies are stubbed through package.json `overrides`). Needs `java` (17+) on the PATH.
 */
export interface DynamoDbLocal {
  /** Where clients reach it (a persisted store: through its commit barrier). */
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startDynamoDbLocal(options: { dataDir?: string; port?: number } = {}): Promise<DynamoDbLocal> {
  const emulator = path.join(path.dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
  const port = options.port ?? (await freePort());
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // Ctrl-C signals the whole process group: the store must outlive the stream consumers that still write to
  // it, so it ignores SIGINT and SIGTERM (the JVM keeps an inherited ignore) and stop() ends it, last, with
  // SIGHUP. SIGKILL still ends it with the group.
  const child = spawn(
    'sh',
    [
      '-c',
      `trap '' INT TERM; exec "$0" "$@"`,
      'java',
      `-Djava.library.path=${path.join(emulator, 'DynamoDBLocal_lib')}`,
      '-jar',
      path.join(emulator, 'DynamoDBLocal.jar'),
      '-sharedDb',
      '-disableTelemetry',
      '-port',
      String(port),
      ...storage,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.once('error', () => undefined);

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGHUP');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (child.exitCode !== null || child.spawnfile === undefined) {
        throw new Error(`DynamoDB Local exited (is java 17+ installed?): ${stderr.trim()}`);
      }
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`DynamoDB Local did not answer within 30 s: ${(error as Error).message}`, { cause: error });
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  if (!options.dataDir) return { endpoint, process: child, stop };
  // A persisted store answers transactions only once they are committed (commit-barrier.ts says why).
  const barrier = await startCommitBarrier(endpoint).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    endpoint: barrier.endpoint,
    process: child,
    stop: async () => {
      await barrier.stop();
      await stop();
    },
  };
}
