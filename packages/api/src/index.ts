// @opsbench/api: the shapes of every /api/v1 request and answer, one file per resource. The web app's handlers
// parse with them and its route contracts (apps/web/lib/api/contracts.ts) and OpenAPI document are made of them;
// the CLI, packed on its own, validates the server's answers with them. Schemas only: no server module, no database.
export * from "./catalog";
export * from "./comparisons";
export * from "./deletion";
export * from "./error-body";
export * from "./external-runs";
export * from "./ingest";
export * from "./notifications";
export * from "./exporters";
export * from "./runs";
export * from "./same-type";
export * from "./secrets";
export * from "./shares";
export * from "./studies";
export * from "./wire";
export * from "./workspace-admin";
export * from "./schedules";
export * from "./pages";
export * from "./series";
