import type { z } from 'zod';
import { ValidationError } from './errors';

/**
 * The one way zod's verdict becomes an error: parses `value` with `schema`, and a failure becomes a
 * ValidationError whose message names the first offending field (`<where>.<path>: <problem>`) and whose
 * `details` name every one. Request edges (shared/http) and use cases alike call it.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const keysOf = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
    for (const key of keysOf) {
      const path = [where, ...issue.path.map(String), ...(key ? [key] : [])].join('.');
      details[path] ??= key ? 'unknown field' : issue.message;
    }
  }
  const [firstPath, firstMessage] = Object.entries(details)[0] ?? [where, 'invalid'];
  throw new ValidationError(`${firstPath}: ${firstMessage}`, details);
}
