export { createDb, type Db } from "./client";
export { applyMigrations, listMigrations, defaultMigrationsDir } from "./migrate";
export { workspaceScope, defaultWorkspaceId, DEFAULT_WORKSPACE_SLUG, NotFoundError, isUuid, type WorkspaceScope } from "./workspace-scope";
export { runStore, type RunStore } from "./run-store";
export { loadRunView, loadResultCells, loadWindowSummary, type RunView } from "./run-view";
export { createImportedRun, K6_IMPORT_SOURCE, type ImportedRunInput } from "./imported-run";
export { loadComparison, type ComparisonView, type ComparisonGroup, type ComparisonGroupInput } from "./comparison";
export { resolveShareLink, type ShareKind, type ShareSubject } from "./share-links";
