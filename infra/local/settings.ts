import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newTokenValue } from '../../shared/domain/auth/tokens';
import { newSecret } from '../../shared/domain/ids';

// Node 20 is the project's development runtime (Lambda runs Node 22); the SDK's notice about its coming
// end of support would otherwise open every local run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The local runtime's settings (docs/reference/environment-variables.md); everything has a default. */
export const WEIR_HOME = path.resolve(process.env.WEIR_HOME ?? '.weir');
export const CREDENTIALS_FILE = path.join(WEIR_HOME, 'credentials.json');
/** Written by `npm start` so the admin CLI can reach the running instance. */
export const RUNTIME_FILE = path.join(WEIR_HOME, 'runtime.json');

export interface RuntimeInfo {
  dynamoEndpoint: string;
  tableName: string;
  controlUrl: string;
  dataUrl: string;
  pid: number;
}

interface StoredCredentials {
  bootstrap?: { email: string; token: string };
  admin?: { user: string; password: string };
  /** The key that wraps workspaces' credential data keys (base64, 32 bytes). */
  credentialsKey?: string;
}

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name} must be a port number, got ${raw}`);
  return value;
}

/**
 * Credentials come from the environment when set; otherwise they are generated once, kept in
 * .weir/credentials.json (mode 600) and reused on every start.
 */
export function resolveSettings() {
  const stored: StoredCredentials = existsSync(CREDENTIALS_FILE) ? JSON.parse(readFileSync(CREDENTIALS_FILE, 'utf8')) : {};
  const generated: string[] = [];
  const envBootstrap = process.env.WEIR_BOOTSTRAP_EMAIL && process.env.WEIR_BOOTSTRAP_TOKEN;
  const bootstrap = envBootstrap
    ? { email: process.env.WEIR_BOOTSTRAP_EMAIL as string, token: process.env.WEIR_BOOTSTRAP_TOKEN as string }
    : (stored.bootstrap ?? (generated.push('bootstrap'), { email: 'admin@weir.local', token: newTokenValue() }));
  const envAdmin = process.env.WEIR_ADMIN_USER && process.env.WEIR_ADMIN_PASSWORD;
  const admin = envAdmin
    ? { user: process.env.WEIR_ADMIN_USER as string, password: process.env.WEIR_ADMIN_PASSWORD as string }
    : (stored.admin ?? (generated.push('admin'), { user: 'admin', password: newSecret(18) }));
  const envKey = process.env.WEIR_CREDENTIALS_KEY;
  const credentialsKey = envKey ?? stored.credentialsKey ?? (generated.push('credentialsKey'), randomBytes(32).toString('base64'));
  if (generated.length > 0) {
    mkdirSync(WEIR_HOME, { recursive: true });
    const kept: StoredCredentials = {
      bootstrap: envBootstrap ? stored.bootstrap : bootstrap,
      admin: envAdmin ? stored.admin : admin,
      credentialsKey: envKey ? stored.credentialsKey : credentialsKey,
    };
    writeFileSync(CREDENTIALS_FILE, JSON.stringify(kept, null, 2), { mode: 0o600 });
  }
  const inMemory = process.env.WEIR_IN_MEMORY === '1' || process.env.WEIR_IN_MEMORY === 'true';
  return {
    controlPort: port('PORT', 3000),
    dataPort: port('DATA_PLANE_PORT', 8080),
    dataDir: inMemory ? undefined : path.resolve(process.env.WEIR_DATA_DIR ?? path.join(WEIR_HOME, 'data')),
    bootstrap,
    admin,
    credentialsKey,
    generated,
  };
}

export function writeRuntimeInfo(info: RuntimeInfo): void {
  mkdirSync(WEIR_HOME, { recursive: true });
  writeFileSync(RUNTIME_FILE, JSON.stringify(info, null, 2));
}

export function readRuntimeInfo(): RuntimeInfo | undefined {
  return existsSync(RUNTIME_FILE) ? (JSON.parse(readFileSync(RUNTIME_FILE, 'utf8')) as RuntimeInfo) : undefined;
}
