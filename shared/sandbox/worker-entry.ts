import fs from 'node:fs';
import path from 'node:path';

/** Absolute path of the worker's TypeScript entry; the infra bundles it as a second output file. */
export const SANDBOX_WORKER_SOURCE = path.join(__dirname, 'worker.ts');

/** File name the bundled worker must have, next to the bundle that starts the pool. */
export const SANDBOX_WORKER_BUNDLE_NAME = 'sandbox-worker.js';

export interface SandboxWorkerLaunch {
  /** File path, or source text when `eval` is true. */
  script: string;
  eval: boolean;
  description: string;
}

/**
 * Where the worker comes from at run time: the bundled file beside the running bundle (Lambda), or else
 * the TypeScript source loaded through tsx's CommonJS hook (jest, tsx, `npm start`). The eval bootstrap
 * resolves tsx from the source's own location, so it works whatever the current directory is.
 */
export function sandboxWorkerLaunch(): SandboxWorkerLaunch {
  const bundled = path.join(__dirname, SANDBOX_WORKER_BUNDLE_NAME);
  if (fs.existsSync(bundled)) return { script: bundled, eval: false, description: bundled };
  const source = JSON.stringify(SANDBOX_WORKER_SOURCE);
  const bootstrap = [`const req = require('node:module').createRequire(${source});`, `req('tsx/cjs/api').register();`, `req(${source});`].join('\n');
  return { script: bootstrap, eval: true, description: `${SANDBOX_WORKER_SOURCE} via tsx` };
}
