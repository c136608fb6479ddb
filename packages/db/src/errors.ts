// Errors of the data layer. A leaf module: everything may import it, it imports nothing.

/** The entity does not exist, or not in the caller's workspace (the two are not told apart). */
export class NotFoundError extends Error {
  constructor(
    readonly entity: "target" | "workload" | "run" | "study" | "share" | "credential",
    readonly key: string,
  ) {
    super(`${entity} "${key}" not found`);
  }
}
