// Errors of the data layer. A leaf module: everything may import it, it imports nothing.

/** The entity does not exist, or not in the caller's workspace (the two are not told apart). */
export class NotFoundError extends Error {
  constructor(
    readonly entity:
      | "target"
      | "workload"
      | "run"
      | "study"
      | "share"
      | "credential"
      | "artifact"
      | "baseline"
      | "schedule"
      | "webhook"
      | "series"
      | "secret"
      | "exporter",
    readonly key: string,
  ) {
    super(`${entity} "${key}" not found`);
  }
}

/** The request cannot be done in the row's present state (e.g. deleting a target that runs still use); the message says why. */
export class ConflictError extends Error {}
