// The one-machine install's settings for TypeScript readers (the CLI, the worker, the web app, the tests): all of it
// lives in local-settings.mjs, which the set-up (plain JavaScript) reads too, so both agree on every port and default.
// Node only (it reads files): not exported from the package's index, which the web app's browser code imports.
export {
  applySecretFiles,
  findRepoRoot,
  LOCAL_DEFAULTS,
  LOCAL_POSTGRES_USER,
  localDatabaseUrl,
  localPorts,
  localPostgresPassword,
  localRedisPassword,
  localRedisUrl,
  resolveLocalEnv,
  SECRET_VARIABLES,
  withSecretFiles,
} from "./local-settings.mjs";
