import { session } from './session';

/**
 * The console's one way to the control plane. The API's URL comes from config.json beside index.html (the
 * local server and the CDK deployment write it), so one build serves every stage.
 */
export interface ConsoleConfig {
  /** The control plane, the only API the console calls. */
  apiUrl: string;
  /** The data plane, only shown in SDK snippets. */
  dataPlaneUrl: string;
}
let config: ConsoleConfig | undefined;
let apiUrl: string | undefined;

export async function loadConfig(): Promise<void> {
  const response = await fetch('./config.json', { cache: 'no-store' });
  config = (await response.json()) as ConsoleConfig;
  apiUrl = config.apiUrl.replace(/\/$/, '');
}

export const consoleConfig = (): ConsoleConfig => config ?? { apiUrl: '', dataPlaneUrl: '' };

/** An answer other than 2xx; `message` is the API's own wording. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** `{error}` on the control plane, `{message}` for some gateway answers; the raw text otherwise. */
function messageOf(body: unknown, text: string, status: number): string {
  if (body && typeof body === 'object') {
    const { error, message } = body as { error?: unknown; message?: unknown };
    if (typeof error === 'string') return error;
    if (typeof message === 'string') return message;
  }
  return text || `HTTP ${status}`;
}

export async function call<T>(method: string, path: string, body?: unknown, token = session.token()): Promise<T> {
  if (!apiUrl) await loadConfig();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // a text answer (regulations answer "Created" without Accept: application/json)
  }
  if (!response.ok) throw new ApiError(response.status, messageOf(parsed, text, response.status), parsed);
  return parsed as T;
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => call<T>('PUT', path, body ?? {}),
  patch: <T>(path: string, body?: unknown) => call<T>('PATCH', path, body ?? {}),
  del: <T>(path: string) => call<T>('DELETE', path),
};
