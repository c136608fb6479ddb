import { parse as parsePgUrl } from "pg-connection-string";
import { describe, expect, it } from "vitest";
import { postgresUrl, redisUrl, withConnectionUrls } from "../src/connection-urls";
import { parseProcessEnv, sharedEnvSchema } from "../src/process-env";

const nasty = "p@ss#w?rd/:x%20 &=";

describe("connection URLs from parts", () => {
  it("encodes a password holding @ # ? / : so Postgres's own URL parser reads it back whole", () => {
    const url = postgresUrl({ host: "postgres", port: 5433, user: "opsbench_app", password: nasty, database: "opsbench" });
    const parsed = parsePgUrl(url);
    expect(parsed.password).toBe(nasty);
    expect(parsed.user).toBe("opsbench_app");
    expect(parsed.host).toBe("postgres");
    expect(parsed.port).toBe("5433");
    expect(parsed.database).toBe("opsbench");
  });

  it("encodes a Redis password the same way, and keeps the db number", () => {
    const url = new URL(redisUrl({ host: "redis", password: nasty, db: 2 }));
    expect(decodeURIComponent(url.password)).toBe(nasty);
    expect(url.hostname).toBe("redis");
    expect(url.port).toBe("6379");
    expect(url.pathname).toBe("/2");
  });

  it("brackets an IPv6 host and leaves out a missing password", () => {
    expect(postgresUrl({ host: "::1", user: "u", database: "d" })).toBe("postgresql://u@[::1]:5432/d");
    expect(redisUrl({ host: "127.0.0.1" })).toBe("redis://127.0.0.1:6379/0");
  });

  it("fills DATABASE_URL and REDIS_URL from their parts, and a URL given outright wins", () => {
    const env = withConnectionUrls({
      POSTGRES_HOST: "postgres",
      POSTGRES_USER: "opsbench_app",
      POSTGRES_PASSWORD: nasty,
      REDIS_HOST: "redis",
      REDIS_PASSWORD: nasty,
      OTHER: "kept",
    });
    expect(parsePgUrl(env.DATABASE_URL!).password).toBe(nasty);
    expect(parsePgUrl(env.DATABASE_URL!).database).toBe("opsbench");
    expect(decodeURIComponent(new URL(env.REDIS_URL!).password)).toBe(nasty);
    expect(env.OTHER).toBe("kept");

    const given = withConnectionUrls({ DATABASE_URL: "postgresql://a@b/c", POSTGRES_HOST: "postgres", REDIS_URL: "redis://r:1/0" });
    expect(given.DATABASE_URL).toBe("postgresql://a@b/c");
    expect(given.REDIS_URL).toBe("redis://r:1/0");
    expect(withConnectionUrls({}).DATABASE_URL).toBeUndefined();
  });
});

describe("process environments from parts", () => {
  it("every process's env module gets DATABASE_URL and REDIS_URL built from the compose file's parts", () => {
    const env = parseProcessEnv(
      sharedEnvSchema,
      {
        POSTGRES_HOST: "postgres",
        POSTGRES_PORT: "5432",
        POSTGRES_USER: "opsbench_app",
        POSTGRES_PASSWORD: nasty,
        POSTGRES_DB: "opsbench",
        REDIS_HOST: "redis",
        REDIS_PASSWORD: nasty,
      },
      "test",
    );
    const pgUrl = parsePgUrl(env.DATABASE_URL);
    expect([pgUrl.user, pgUrl.password, pgUrl.host, pgUrl.database]).toEqual(["opsbench_app", nasty, "postgres", "opsbench"]);
    expect(decodeURIComponent(new URL(env.REDIS_URL).password)).toBe(nasty);
    // The parts themselves are not part of the parsed environment (they carry the passwords).
    expect(Object.keys(env)).not.toContain("POSTGRES_PASSWORD");
  });
});
