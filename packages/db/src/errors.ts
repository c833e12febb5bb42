/**
 * The typed failures of the repositories, so callers decide by kind instead of by message: the API
 * answers `NotFoundError` with 404 `not_found` and `ConflictError` with 409 `conflict`; the worker
 * treats a `NotFoundError` as final (the job is not retried: a vanished session or flush request
 * does not come back).
 */

/** The row an operation needs does not exist (for this tenant): a session, a flush request, a tenant. */
export class NotFoundError extends Error {
  constructor(
    readonly entity: "tenant" | "session" | "flush request",
    readonly id: string,
    detail?: string,
  ) {
    super(`${entity} ${id} not found${detail ? ` ${detail}` : ""}`);
    this.name = "NotFoundError";
  }
}

/** The write contradicts what is stored: an id taken by another session, a change made meanwhile. */
export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConflictError";
  }
}
