import { describe, expect, it } from "vitest";
import { parseProcessEnv, sharedEnvSchema } from "../src/process-env";

describe("the shared environment schema", () => {
  it("gives every process the same defaults, and treats an empty variable as unset", () => {
    const env = parseProcessEnv(sharedEnvSchema, { DATABASE_URL: "", OPSBENCH_WEB_PORT: "4000" }, "test");
    expect(env.DATABASE_URL).toBe("postgresql://opsbench@127.0.0.1:55432/opsbench");
    expect(env.REDIS_URL).toBe("redis://127.0.0.1:56379/0");
    expect(env.OPSBENCH_WEB_PORT).toBe(4000);
    expect(env.OPSBENCH_NEXT_DIST_DIR).toBe(".next");
  });

  it("refuses bad values, naming the process and every variable at fault", () => {
    expect(() => parseProcessEnv(sharedEnvSchema, { REDIS_URL: "not a url", OPSBENCH_WEB_PORT: "0" }, "worker")).toThrow(
      /^worker: bad environment\n {2}REDIS_URL: .*\n {2}OPSBENCH_WEB_PORT: /,
    );
  });
});
