import { ValidationError } from '../errors';

/** Segments a query key may not have: they would reach an object's prototype rather than a field. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
/** A query key names a field at most this deep (`properties.product.sku` is 3). */
const MAX_SEGMENTS = 8;

/**
 * The event of a pixel (an image request: an email open, a page without JavaScript), built from its query as
 * the field's servers build it: every parameter but the write key is a field, dotted keys nested
 * (`properties.plan=pro` → `properties: {plan: 'pro'}`), values as strings.
 */
export function eventFromQuery(type: 'track' | 'page', query: Record<string, unknown>): Record<string, unknown> {
  const event: Record<string, unknown> = { type };
  for (const [key, value] of Object.entries(query)) {
    if (key === 'writeKey' || typeof value !== 'string') continue;
    const path = key.split('.');
    if (path.length > MAX_SEGMENTS || path.some((segment) => segment === '' || FORBIDDEN.has(segment))) {
      throw new ValidationError(`query.${key}: not a field name`);
    }
    let target = event;
    for (const segment of path.slice(0, -1)) {
      const next = Object.hasOwn(target, segment) ? target[segment] : (target[segment] = {});
      if (next === null || typeof next !== 'object')
        throw new ValidationError(`query.${key}: ${path.slice(0, path.indexOf(segment) + 1).join('.')} is already a value`);
      target = next as Record<string, unknown>;
    }
    const last = path[path.length - 1]!;
    if (Object.hasOwn(target, last)) throw new ValidationError(`query.${key}: given twice`);
    target[last] = value;
  }
  return event;
}
