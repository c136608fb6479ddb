// Types of local-settings.mjs (plain JavaScript so that the set-up can import it on any Node).
type Env = Readonly<Record<string, string | undefined>>;
export { LOCAL_DEFAULTS } from "./local-defaults.mjs";
export declare const LOCAL_POSTGRES_USER: string;
export declare const SECRET_VARIABLES: readonly string[];
export declare function localPorts(env?: Env): { postgres: number; redis: number; web: number };
export declare function withSecretFiles<E extends Env>(env: E): E;
export declare function localPostgresPassword(repoRoot: string | null): string | null;
export declare function localRedisPassword(repoRoot: string | null): string | null;
export declare function localDatabaseUrl(repoRoot: string | null, db?: string, env?: Env): string;
export declare function localRedisUrl(repoRoot: string | null, db?: number, env?: Env): string;
export declare function resolveLocalEnv<E extends Env>(
  source: E,
  repoRoot: string | null,
): E & { DATABASE_URL?: string; REDIS_URL?: string };
export declare function findRepoRoot(start?: string): string | null;
export declare function applySecretFiles<E extends Record<string, string | undefined>>(target?: E): E;
