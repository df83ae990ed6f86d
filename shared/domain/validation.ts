import { config, safeParse, type $ZodError, type $ZodType, type output } from 'zod/v4/core';
import { en } from 'zod/v4/locales';
import { ValidationError } from './errors';

// zod/mini (the schemas on the ingest path) loads no locale, and its messages would all read "Invalid input":
// English, as the full build sets it, whichever build a function carries.
config(en());

/** One thing zod refused: where (the path under the value checked), its message, and for an object the fields it does not know. */
export interface Problem {
  path: string[];
  message: string;
  unknownKeys?: string[];
}

/** What a failed parse refused, in zod's order: the one place that reads zod's issues. */
export const problemsOf = (error: $ZodError): Problem[] =>
  error.issues.map((issue) => ({
    path: issue.path.map(String),
    message: issue.message,
    ...(issue.code === 'unrecognized_keys' && { unknownKeys: issue.keys }),
  }));

/**
 * The one way zod's verdict becomes an error: parses `value` with `schema`, and a failure becomes a
 * ValidationError whose message names the first offending field (`<where>.<path>: <problem>`) and whose
 * `details` name every one. Request edges (shared/http) and use cases alike call it.
 */
export function validate<S extends $ZodType>(schema: S, value: unknown, where: string): output<S> {
  const result = safeParse(schema, value);
  if (result.success) return result.data;
  const details: Record<string, string> = {};
  for (const problem of problemsOf(result.error)) {
    const keysOf = problem.unknownKeys ?? [undefined];
    for (const key of keysOf) {
      const path = [where, ...problem.path, ...(key ? [key] : [])].join('.');
      details[path] ??= key ? 'unknown field' : problem.message;
    }
  }
  const [firstPath, firstMessage] = Object.entries(details)[0] ?? [where, 'invalid'];
  throw new ValidationError(`${firstPath}: ${firstMessage}`, details);
}
