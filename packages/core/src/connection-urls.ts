// Connection URLs built from their parts, with user and password percent-encoded,
// so a password holding `@ # ? / :` (or anything else) cannot break the URL.
// Compose files and secret stores hand out parts; drivers want one URL.

export interface PostgresParts {
  host: string;
  port?: number;
  user: string;
  password?: string;
  database: string;
}

export interface RedisParts {
  host: string;
  port?: number;
  password?: string;
  /** The Redis database number. */
  db?: number;
}

/** A literal IPv6 address goes in brackets in a URL. */
const urlHost = (host: string) => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);

export function postgresUrl(p: PostgresParts): string {
  const auth = encodeURIComponent(p.user) + (p.password ? `:${encodeURIComponent(p.password)}` : "");
  return `postgresql://${auth}@${urlHost(p.host)}:${p.port ?? 5432}/${encodeURIComponent(p.database)}`;
}

export function redisUrl(p: RedisParts): string {
  const auth = p.password ? `:${encodeURIComponent(p.password)}@` : "";
  return `redis://${auth}${urlHost(p.host)}:${p.port ?? 6379}/${p.db ?? 0}`;
}

type EnvRecord = Readonly<Record<string, string | undefined>>;

const set = (v: string | undefined): v is string => v !== undefined && v !== "";
const portOf = (v: string | undefined) => (set(v) ? Number(v) : undefined);

/**
 * The environment with DATABASE_URL and REDIS_URL filled in from their parts when
 * they are not given: POSTGRES_HOST (with POSTGRES_PORT, POSTGRES_USER, POSTGRES_PASSWORD,
 * POSTGRES_DB) and REDIS_HOST (with REDIS_PORT, REDIS_PASSWORD, REDIS_DB). A URL given
 * outright wins over parts. Nothing else changes.
 */
export function withConnectionUrls<E extends EnvRecord>(env: E): E & { DATABASE_URL?: string; REDIS_URL?: string } {
  const databaseUrl =
    !set(env.DATABASE_URL) && set(env.POSTGRES_HOST)
      ? postgresUrl({
          host: env.POSTGRES_HOST,
          port: portOf(env.POSTGRES_PORT),
          user: set(env.POSTGRES_USER) ? env.POSTGRES_USER : "opsbench",
          password: env.POSTGRES_PASSWORD,
          database: set(env.POSTGRES_DB) ? env.POSTGRES_DB : "opsbench",
        })
      : env.DATABASE_URL;
  const redis =
    !set(env.REDIS_URL) && set(env.REDIS_HOST)
      ? redisUrl({ host: env.REDIS_HOST, port: portOf(env.REDIS_PORT), password: env.REDIS_PASSWORD, db: portOf(env.REDIS_DB) })
      : env.REDIS_URL;
  return { ...env, DATABASE_URL: databaseUrl, REDIS_URL: redis };
}
