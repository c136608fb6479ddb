// @opsbench/api: the shapes of the /api/v1 requests and answers that more than the web app reads (the CLI,
// packed on its own, validates the server's answers with them). Schemas only: no server module, no database.
export * from "./error-body";
export * from "./runs";
export * from "./wire";
export * from "./external-runs";
