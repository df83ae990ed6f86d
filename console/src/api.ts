import type { ControlRouteKey, QueryValue, RouteInput, RouteResponse } from '../../shared/contract/client-types';
import { requestOf } from './request';
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

/** What a call may add to its route's input. */
export interface CallOptions {
  /** Request headers over the defaults (Accept: application/json, the session's Bearer token). */
  headers?: Record<string, string>;
  /** The token to send instead of the session's: signing in checks one before keeping it. */
  token?: string | null;
}
export type CallInput<K extends ControlRouteKey> = RouteInput<K> & CallOptions;
/** The input may be left out when the route needs none (no params, no body). */
type InputArgs<K extends ControlRouteKey> = Partial<CallInput<K>> extends CallInput<K> ? [input?: CallInput<K>] : [input: CallInput<K>];
type LooseInput = { params?: Record<string, unknown>; query?: Record<string, QueryValue>; body?: unknown } & CallOptions;

/**
 * Calls a route of the control plane by its key in the route manifest, e.g.
 * `api.call('GET /v2/sources/{id}', { params: { id } })`: the input is typed from the route's schemas, the
 * answer is the route's response type (not parsed here: the API answers what its schema says).
 */
async function call<K extends ControlRouteKey>(key: K, ...[input]: InputArgs<K>): Promise<RouteResponse<K>> {
  // Read loosely: checking the generic input against LooseInput would expand every route's input type at once.
  const { params, query, body, headers: extra, token = session.token() }: LooseInput = (input as unknown as LooseInput | undefined) ?? {};
  const { method, path } = requestOf(key, params, query);
  if (!apiUrl) await loadConfig();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  Object.assign(headers, extra);
  const response = await fetch(`${apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // a text answer (regulations answer "Created" without Accept: application/json)
  }
  if (!response.ok) throw new ApiError(response.status, messageOf(parsed, text, response.status), parsed);
  return parsed as RouteResponse<K>;
}

export const api = { call };
