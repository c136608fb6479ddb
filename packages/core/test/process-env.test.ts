import { describe, expect, it } from "vitest";
import { parseProcessEnv, sharedEnvSchema } from "../src/process-env";

describe("the shared environment schema", () => {
  it("gives every process the same defaults, and treats an empty variable as unset", () => {
    const urls = { DATABASE_URL: "postgresql://opsbench@127.0.0.1:55432/opsbench", REDIS_URL: "redis://127.0.0.1:56379/0" };
    const env = parseProcessEnv(sharedEnvSchema, { ...urls, OPSBENCH_NEXT_DIST_DIR: "", OPSBENCH_WEB_PORT: "4000" }, "test");
    expect(env.OPSBENCH_WEB_PORT).toBe(4000);
    expect(env.OPSBENCH_NEXT_DIST_DIR).toBe(".next");
  });

  it("has no default database of its own: an unset DATABASE_URL is named (local-settings.mjs fills it in first)", () => {
    expect(() => parseProcessEnv(sharedEnvSchema, { DATABASE_URL: "", REDIS_URL: "redis://127.0.0.1:1/0" }, "worker")).toThrow(
      /DATABASE_URL: a postgresql:\/\/ URL .*OPSBENCH_PG_PORT/,
    );
  });

  it("refuses bad values, naming the process and every variable at fault", () => {
    expect(() =>
      parseProcessEnv(sharedEnvSchema, { DATABASE_URL: "postgresql://a@b/c", REDIS_URL: "not a url", OPSBENCH_WEB_PORT: "0" }, "worker"),
    ).toThrow(/^worker: bad environment\n {2}REDIS_URL: .*\n {2}OPSBENCH_WEB_PORT: /);
  });
});
