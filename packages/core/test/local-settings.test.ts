// The one source of the local set-up's settings (local-settings.mjs): ports from the environment a process is given,
// the URLs the CLI and the worker fall back to, and the *_FILE form of secrets.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LOCAL_DEFAULTS, localPorts, resolveLocalEnv, SECRET_VARIABLES, withSecretFiles } from "../src/local-services";
import { parseProcessEnv, sharedEnvSchema } from "../src/process-env";

const tmp = mkdtempSync(path.join(os.tmpdir(), "opsbench-local-settings-"));
const file = (name: string, text: string) => {
  const at = path.join(tmp, name);
  writeFileSync(at, text);
  return at;
};
// A checkout whose set-up made passwords (.data), as scripts/local-services.mjs does.
const repo = path.join(tmp, "repo");
mkdirSync(path.join(repo, ".data/redis"), { recursive: true });
writeFileSync(path.join(repo, ".data/postgres-password"), "pg pass/\n");
writeFileSync(path.join(repo, ".data/redis/password"), "redis-pass\n");

describe("local settings", () => {
  it("resolves DATABASE_URL and REDIS_URL on the ports OPSBENCH_PG_PORT and OPSBENCH_REDIS_PORT name, with the set-up's passwords", () => {
    const env = resolveLocalEnv({ OPSBENCH_PG_PORT: "55513", OPSBENCH_REDIS_PORT: "56513" }, repo);
    expect(env.DATABASE_URL).toBe("postgresql://opsbench:pg%20pass%2F@127.0.0.1:55513/opsbench");
    expect(env.REDIS_URL).toBe("redis://:redis-pass@127.0.0.1:56513/0");
    // What the worker and the CLI parse: the port survives the shared schema (no second default behind it).
    const parsed = parseProcessEnv(sharedEnvSchema, env, "worker");
    expect(new URL(parsed.DATABASE_URL).port).toBe("55513");
    expect(new URL(parsed.REDIS_URL).port).toBe("56513");
  });

  it("takes the defaults when the ports are unset, and never overrides a URL or compose's parts", () => {
    const env = resolveLocalEnv({}, null);
    expect(env.DATABASE_URL).toBe(`postgresql://opsbench@127.0.0.1:${LOCAL_DEFAULTS.OPSBENCH_PG_PORT}/opsbench`);
    expect(env.REDIS_URL).toBe(`redis://127.0.0.1:${LOCAL_DEFAULTS.OPSBENCH_REDIS_PORT}/0`);
    const own = resolveLocalEnv({ DATABASE_URL: "postgresql://a@db/x", REDIS_HOST: "cache", OPSBENCH_PG_PORT: "1" }, repo);
    expect(own.DATABASE_URL).toBe("postgresql://a@db/x");
    expect(own.REDIS_URL).toBeUndefined();
  });

  it("refuses a port that is not one, naming the variable", () => {
    expect(() => localPorts({ OPSBENCH_PG_PORT: "5543x" })).toThrow('OPSBENCH_PG_PORT: "5543x" is not a port');
    expect(() => resolveLocalEnv({ OPSBENCH_REDIS_PORT: "70000" }, null)).toThrow(/OPSBENCH_REDIS_PORT/);
  });

  it("reads every secret from <VAR>_FILE, trimmed", () => {
    expect(SECRET_VARIABLES).toEqual(expect.arrayContaining(["DATABASE_URL", "REDIS_URL", "OPSBENCH_SECRET_KEY", "OPSBENCH_AUTH_SECRET"]));
    for (const name of SECRET_VARIABLES) {
      const env = withSecretFiles({ [`${name}_FILE`]: file(`${name}.txt`, `  value-of-${name}\n\n`) });
      expect(env[name]).toBe(`value-of-${name}`);
      expect(env[`${name}_FILE`]).toBeUndefined();
    }
    const env = resolveLocalEnv({ DATABASE_URL_FILE: file("db", "postgresql://u:p@db.internal:5432/ops\n") }, repo);
    expect(env.DATABASE_URL).toBe("postgresql://u:p@db.internal:5432/ops");
  });

  it("refuses a secret given both ways, a missing file and an empty one", () => {
    expect(() => withSecretFiles({ OPSBENCH_SECRET_KEY: "k", OPSBENCH_SECRET_KEY_FILE: file("k", "k2") })).toThrow(
      "OPSBENCH_SECRET_KEY and OPSBENCH_SECRET_KEY_FILE are both set",
    );
    expect(() => withSecretFiles({ REDIS_URL_FILE: path.join(tmp, "nope") })).toThrow(/REDIS_URL_FILE: cannot read ".*nope": ENOENT/);
    expect(() => withSecretFiles({ OPSBENCH_AUTH_SECRET_FILE: file("empty", " \n") })).toThrow(
      /OPSBENCH_AUTH_SECRET_FILE: ".*empty" is empty/,
    );
  });
});

describe("the CLI's children", () => {
  it("get secrets read from their files, never VAR beside VAR_FILE", async () => {
    const { childEnv, loadEnv } = await import("../../../apps/cli/src/env");
    const key = file("secret-key", `${"ab".repeat(32)}\n`);
    const saved = { ...process.env };
    try {
      process.env.OPSBENCH_SECRET_KEY_FILE = key;
      delete process.env.OPSBENCH_SECRET_KEY;
      const child = childEnv(loadEnv(process.env));
      expect(child.OPSBENCH_SECRET_KEY).toBe("ab".repeat(32));
      expect(child.OPSBENCH_SECRET_KEY_FILE).toBeUndefined();
    } finally {
      process.env = saved;
    }
  });
});
