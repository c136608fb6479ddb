import { describe, expect, it } from "vitest";
import {
  REDACTED_ENV_VALUE,
  localFunctionSpec,
  localServiceSpec,
  redactTargetSecrets,
  restoreTargetSecrets,
  targetEnvNameProblem,
  targetInput,
} from "../src";

const serviceWith = (env: Record<string, string>) => localServiceSpec.safeParse({ app: "echo/go", env });
const messages = (r: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  (r.error?.issues ?? []).map((i) => `${i.path.join(".")}: ${i.message}`);

describe("a target's env names", () => {
  it("accepts plain configuration names, NODE_ENV and PYTHONUNBUFFERED", () => {
    const ok = {
      IOT_DATABASE_URL: "postgresql://u:p@h/db",
      RIWAI_DEFAULT_N: "10",
      NODE_ENV: "production",
      PYTHONUNBUFFERED: "1",
      HOST: "0.0.0.0",
    };
    expect(serviceWith(ok).success).toBe(true);
    expect(localFunctionSpec.safeParse({ app: "echo/node", env: ok }).success).toBe(true);
  });

  it.each([
    "NODE_OPTIONS",
    "NODE_PATH",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "ld_audit",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONWARNINGS",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "PERL5OPT",
    "RUBYOPT",
    "DOTNET_STARTUP_HOOKS",
    "GLIBC_TUNABLES",
    "BASH_ENV",
    "OPENSSL_CONF",
  ])("refuses the interpreter/loader hook %s with a clear message, on both local kinds", (name) => {
    const r = serviceWith({ [name]: "--import=data:text/javascript,1" });
    expect(r.success).toBe(false);
    expect(messages(r)).toEqual([`env.${name}: ${name} is refused: ${targetEnvNameProblem(name)!.split(": ").slice(1).join(": ")}`]);
    expect(messages(r)[0]).toMatch(/run code or read files of the caller's choosing/);
    expect(localFunctionSpec.safeParse({ app: "echo/node", env: { [name]: "x" } }).success).toBe(false);
  });

  it("refuses what opsbench sets itself and names that are not plain", () => {
    for (const name of ["PATH", "HOME", "PORT", "OPSBENCH_BASE_URL"]) expect(targetEnvNameProblem(name)).toMatch(/set by opsbench itself/);
    for (const name of ["A=B", "1ABC", "WITH SPACE", "", "É", "A-B", "X".repeat(129)])
      expect(targetEnvNameProblem(name)).toMatch(/not a plain variable name/);
    expect(messages(serviceWith({ GOOD: "a\0b" }))).toEqual(["env.GOOD: a value cannot contain a NUL character"]);
  });

  it("is checked through the API's target input too", () => {
    const r = targetInput.safeParse({ name: "t", kind: "local-service", spec: { app: "echo/go", env: { NODE_OPTIONS: "--require=/x" } } });
    expect(r.success).toBe(false);
    expect(messages(r)[0]).toMatch(/^spec\.env\.NODE_OPTIONS: NODE_OPTIONS is refused/);
  });
});

describe("env values are write-only", () => {
  const stored = { app: "iot", replicas: 1, env: { IOT_DATABASE_URL: "postgresql://iot:s3cret@db/iot", IOT_SEED: "1" } };

  it("redactTargetSecrets keeps the names and hides every value, without touching the stored spec", () => {
    const shown = redactTargetSecrets(stored);
    expect(shown).toEqual({ app: "iot", replicas: 1, env: { IOT_DATABASE_URL: REDACTED_ENV_VALUE, IOT_SEED: REDACTED_ENV_VALUE } });
    expect(JSON.stringify(shown)).not.toContain("s3cret");
    expect(stored.env.IOT_DATABASE_URL).toContain("s3cret");
    expect(redactTargetSecrets({ app: "echo/go" })).toEqual({ app: "echo/go" });
    expect(redactTargetSecrets(null)).toBeNull();
  });

  it("restoreTargetSecrets keeps hidden values, takes new ones and drops removed names", () => {
    const edited = { ...redactTargetSecrets(stored), env: { IOT_DATABASE_URL: REDACTED_ENV_VALUE, IOT_SCRYPT_COST: "1024" } };
    expect(restoreTargetSecrets(edited, stored).env).toEqual({ IOT_DATABASE_URL: stored.env.IOT_DATABASE_URL, IOT_SCRYPT_COST: "1024" });
    // A marker for a variable that was never stored is dropped, never saved as the literal marker.
    expect(restoreTargetSecrets({ env: { NEW: REDACTED_ENV_VALUE } }, stored).env).toEqual({});
  });
});
