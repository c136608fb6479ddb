// Types of local-services.mjs, for the TypeScript tests that import it.
export function redisServerArgs(port: number, dir: string, confFile?: string): string[];
export function localRedisPassword(): string | null;
export function localRedisUrl(db?: number): string;
export function localPostgresPassword(): string | null;
export function localDatabaseUrl(db?: string): string;
export const localServices: {
  postgresBin(name: string): string | null;
  start(opts?: { log?: (msg: string) => void }): Promise<{ databaseUrl: string; testDatabaseUrl: string; redisUrl: string }>;
  stop(): void;
};
