import { rmSync } from 'node:fs';
import { endStore, recordedStores } from './worker-store';

/** Ends every DynamoDB Local the workers started (worker-store.ts) and removes the run's folder of them. */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env.WEIR_TEST_STORES_DIR;
  if (!dir) return;
  for (const { store } of recordedStores(dir)) endStore(store.pid);
  rmSync(dir, { recursive: true, force: true });
}
