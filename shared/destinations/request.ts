import type { DestinationRequest } from './types';

export interface RequestParts {
  method: DestinationRequest['method'];
  endpoint: string;
  headers?: Record<string, string>;
  params?: Record<string, string>;
  json?: Record<string, unknown>;
  jsonArray?: Record<string, unknown>;
  xml?: Record<string, unknown>;
  form?: Record<string, unknown>;
  userId?: unknown;
}

/** Builds a request in the §2.7 shape; unused body kinds stay empty objects, as the reference shows them. */
export function restRequest(parts: RequestParts): DestinationRequest {
  return {
    version: '1',
    type: 'REST',
    method: parts.method,
    endpoint: parts.endpoint,
    headers: parts.headers ?? {},
    params: parts.params ?? {},
    body: { JSON: parts.json ?? {}, JSON_ARRAY: parts.jsonArray ?? {}, XML: parts.xml ?? {}, FORM: parts.form ?? {} },
    files: {},
    ...(typeof parts.userId === 'string' && parts.userId !== '' && { userId: parts.userId }),
  };
}

/** A POST of a JSON body, the JSON content type first among its headers. */
export const postJson = (
  endpoint: string,
  json: Record<string, unknown>,
  parts: Pick<RequestParts, 'headers' | 'params' | 'userId'> = {},
): DestinationRequest => restRequest({ ...parts, method: 'POST', endpoint, headers: { 'Content-Type': 'application/json', ...parts.headers }, json });

const isEmpty = (value: Record<string, unknown>) => Object.keys(value).length === 0;

/**
 * The bytes a request sends and their content type: the last non-empty of JSON, JSON_ARRAY, XML and FORM
 * (the reference's rule). JSON_ARRAY carries its array under `batch`; XML its document under `payload`.
 */
export function encodeBody(request: DestinationRequest): { body?: string; contentType?: string } {
  const { JSON: json, JSON_ARRAY: jsonArray, XML: xml, FORM: form } = request.body;
  if (!isEmpty(form)) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(form)) {
      params.append(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
    return { body: params.toString(), contentType: 'application/x-www-form-urlencoded' };
  }
  if (!isEmpty(xml)) return { body: String(xml.payload ?? ''), contentType: 'application/xml' };
  if (!isEmpty(jsonArray)) return { body: JSON.stringify(jsonArray.batch ?? []), contentType: 'application/json' };
  if (!isEmpty(json)) return { body: JSON.stringify(json), contentType: 'application/json' };
  return {};
}

/** The endpoint with `params` appended as its query string. */
export function urlWithParams(request: DestinationRequest): string {
  const entries = Object.entries(request.params);
  if (entries.length === 0) return request.endpoint;
  const url = new URL(request.endpoint);
  for (const [key, value] of entries) url.searchParams.append(key, String(value));
  return url.href;
}
