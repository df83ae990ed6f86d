import type { ControlRouteKey, QueryValue, RouteInput, RouteResponse } from '../shared/contract/client-types';
import { requestOf } from '../console/src/request';

/**
 * weir's one way to the control plane, as the console's (console/src/api.ts): a route named by its key in the
 * route manifest, its input and answer typed from the route's schemas. Only the public API: no table, no domain.
 */
export const DEFAULT_URL = 'http://localhost:3000';

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

function messageOf(body: unknown, text: string, status: number): string {
  if (body && typeof body === 'object') {
    const { error, message } = body as { error?: unknown; message?: unknown };
    if (typeof error === 'string') return error;
    if (typeof message === 'string') return message;
  }
  return text || `HTTP ${status}`;
}

type InputArgs<K extends ControlRouteKey> = Partial<RouteInput<K>> extends RouteInput<K> ? [input?: RouteInput<K>] : [input: RouteInput<K>];
type LooseInput = { params?: Record<string, unknown>; query?: Record<string, QueryValue>; body?: unknown };

export interface Api {
  call<K extends ControlRouteKey>(key: K, ...input: InputArgs<K>): Promise<RouteResponse<K>>;
  /** A call whose non-2xx answer is returned, not thrown (publish and test runs answer 400 with results). */
  raw(key: ControlRouteKey, input: LooseInput): Promise<{ status: number; body: unknown }>;
}

export function apiClient(baseUrl: string, token: string | undefined): Api {
  const base = baseUrl.replace(/\/$/, '');
  const send = async (key: string, input: LooseInput = {}) => {
    const { method, path } = requestOf(key, input.params, input.query);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (input.body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, { method, headers, body: input.body === undefined ? undefined : JSON.stringify(input.body) });
    } catch (error) {
      throw new ApiError(0, `cannot reach the control plane at ${base} (WEIR_URL): ${(error as Error).cause ?? (error as Error).message}`, undefined);
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // a text answer
    }
    return { status: response.status, body, text, key };
  };
  return {
    async call(key, ...[input]) {
      const answer = await send(key, input as unknown as LooseInput | undefined);
      if (answer.status < 200 || answer.status > 299)
        throw new ApiError(answer.status, `${key}: ${messageOf(answer.body, answer.text, answer.status)}`, answer.body);
      return answer.body as never;
    },
    raw: (key, input) => send(key, input),
  };
}
