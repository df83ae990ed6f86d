/**
 * Domain errors. Services throw these; shared/http/error-mapping.ts is the one place that turns them into
 * HTTP responses. `details` maps a field path to what is wrong with it.
 */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly details?: Record<string, string>,
    /** Further fields of the error body, e.g. the per-revision results of a refused publish. */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {}
/** A listing's cursor that the listing never gave (a 400 naming the query field it came in). */
export class InvalidCursorError extends ValidationError {
  constructor(field = 'after_cursor') {
    super(`${field}: not a cursor of this listing; take it from paging.next`);
  }
}
export class UnauthorizedError extends DomainError {}
export class NotFoundError extends DomainError {
  static of(what: string, id: string): NotFoundError {
    return new NotFoundError(`${what} with id ${id} not found`);
  }
}
export class ConflictError extends DomainError {}
/** A write built on a head (transformation or library) that moved meanwhile: read it again and retry. */
export class StaleHeadError extends ConflictError {}
/** A transformation name or a library import name already taken in the workspace. */
export class NameTakenError extends ConflictError {}
/** A destination deleted, or connected to another transformation, while it was being connected. */
export class DestinationTakenError extends ConflictError {}
export class PayloadTooLargeError extends DomainError {}
/** Too much at once: `retryAfterSeconds` (a whole number, at least 1), when given, is answered as `Retry-After`. */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}
/** A dependency (the store) cannot take the request now; clients retry. */
export class ServiceUnavailableError extends DomainError {}
