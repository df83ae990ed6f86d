import './console-env';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { serveConsole } from './console-site';
import { startLocalRuntime } from './runtime';
import { CREDENTIALS_FILE, RUNTIME_FILE, resolveSettings, writeRuntimeInfo } from './settings';

/** `npm start`: the whole service on this machine (DESIGN.md §2, "contract of the local runtime"). */
async function main() {
  const settings = resolveSettings();
  const runtime = await startLocalRuntime({
    controlPort: settings.controlPort,
    dataPort: settings.dataPort,
    dataDir: settings.dataDir,
    bootstrap: settings.bootstrap,
    admin: settings.admin,
    credentialsKey: settings.credentialsKey,
    checkpointFile: settings.dataDir && path.join(settings.dataDir, 'stream-checkpoints.json'),
  });
  writeRuntimeInfo({
    dynamoEndpoint: runtime.dynamoEndpoint,
    tableName: runtime.tableName,
    controlUrl: runtime.controlUrl,
    dataUrl: runtime.dataUrl,
    pid: process.pid,
  });

  const rows: [string, string][] = [
    ['console', (await serveConsole(runtime)).url],
    ['control plane', runtime.controlUrl],
    ['data plane', runtime.dataUrl],
    ['storage', settings.dataDir ?? 'in memory (WEIR_IN_MEMORY=1)'],
    ['workspace', `${runtime.bootstrap?.workspaceId}  (${settings.bootstrap.email})`],
  ];
  if (settings.generated.includes('bootstrap')) rows.push(['token', `${settings.bootstrap.token}   (generated, kept in ${CREDENTIALS_FILE})`]);
  if (settings.generated.includes('admin')) {
    rows.push(['data-plane admin', `${settings.admin.user} / ${settings.admin.password}   (generated, kept in ${CREDENTIALS_FILE})`]);
  }
  if (!settings.generated.includes('bootstrap') && !process.env.WEIR_BOOTSTRAP_TOKEN) rows.push(['credentials', CREDENTIALS_FILE]);
  const lines = ['Weir is running', ...rows.map(([label, value]) => `  ${label.padEnd(18)}${value}`)];
  console.log(lines.join('\n'));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping Weir`);
    await runtime.stop();
    rmSync(RUNTIME_FILE, { force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // A wrapper such as `npm start` may die of a signal without passing it on; never outlive it.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void shutdown('parent exited'), 500).unref();
}

main().catch((error: unknown) => {
  console.error(`weir: failed to start: ${(error as Error).message}`);
  process.exit(1);
});
