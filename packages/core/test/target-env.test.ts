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

  it("refuses the listening settings (HOST, HOSTNAME, PORT): a benchapp listens where opsbench says, never on every interface", () => {
    for (const name of ["HOST", "host", "HOSTNAME"]) {
      const r = serviceWith({ [name]: "0.0.0.0" });
      expect(messages(r)).toEqual([
        `env.${name}: ${name} is refused: it sets the address a benchapp listens on, which opsbench sets itself (the run's own address: never every interface of the machine)`,
      ]);
      expect(localFunctionSpec.safeParse({ app: "echo/node", env: { [name]: "0.0.0.0" } }).success).toBe(false);
      // The API's target input, as POST /api/v1/targets parses it (the worker parses the stored spec the same way).
      const input = targetInput.safeParse({ name: "t", kind: "local-service", spec: { app: "echo/go", env: { [name]: "0.0.0.0" } } });
      expect(input.success).toBe(false);
    }
    expect(targetEnvNameProblem("PORT")).toMatch(/set by opsbench itself/);
    expect(targetEnvNameProblem("HOSTALIASES")).toMatch(/is refused/);
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

describe("an aws-asg container's env is hidden like env", () => {
  it("redacts container.env values and restores hidden ones on edit", () => {
    const stored = { region: "us-east-1", container: { image: "nginx:1", env: { TOKEN: "s3cret", MODE: "a" } } };
    const shown = redactTargetSecrets(stored, { canEdit: true });
    expect(shown.container).toEqual({ image: "nginx:1", env: { TOKEN: REDACTED_ENV_VALUE, MODE: REDACTED_ENV_VALUE } });
    expect(JSON.stringify(shown)).not.toContain("s3cret");
    const edited = { ...shown, container: { ...shown.container, env: { TOKEN: REDACTED_ENV_VALUE, MODE: "b" } } };
    expect(restoreTargetSecrets(edited, stored).container).toEqual({ image: "nginx:1", env: { TOKEN: "s3cret", MODE: "b" } });
  });
});

describe("Secret data in manifests and userData are hidden like env values", () => {
  const manifests = `apiVersion: v1
kind: Secret
metadata:
  name: db # password is hunter2-comment
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"data":{"password":"aHVudGVyMi1hbm5vdGF0aW9u"}}'
type: Opaque
data:
  password: aHVudGVyMi1kYXRh
stringData:
  token: hunter2-stringdata
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
`;
  const stored = { credential: "k", manifests, env: {} };

  it("hides every value of a Secret (data, stringData, annotations, its comments) and leaves other documents as written", () => {
    const shown = redactTargetSecrets(stored, { canEdit: true }).manifests;
    expect(shown).not.toContain("hunter2");
    expect(shown).not.toContain("aHVudGVyMi");
    expect(shown).toContain(`password: ${REDACTED_ENV_VALUE}`);
    expect(shown).toContain(`token: ${REDACTED_ENV_VALUE}`);
    expect(shown).toContain("kind: Deployment");
    expect(stored.manifests).toBe(manifests);
    // Manifests that cannot be read safely (YAML aliases, a parse error) are hidden whole.
    expect(redactTargetSecrets({ manifests: "a: &x 1\nb: *x\n" }).manifests).toBe(REDACTED_ENV_VALUE);
    expect(redactTargetSecrets({ manifests: "kind: Secret\ndata: [unclosed" }).manifests).toBe(REDACTED_ENV_VALUE);
    // Without a Secret nothing is rewritten.
    const plain = "kind: Deployment\nmetadata: {name: web}\n";
    expect(redactTargetSecrets({ manifests: plain }).manifests).toBe(plain);
  });

  it("an edit sending the markers back keeps the stored values; a changed value replaces it; an unknown key is dropped", () => {
    const shown = redactTargetSecrets(stored, { canEdit: true }).manifests as string;
    const edited = shown.replace(`token: ${REDACTED_ENV_VALUE}`, "token: new-token").replace("replicas: 1", "replicas: 2");
    const restored = restoreTargetSecrets(
      { ...stored, manifests: `${edited}---\napiVersion: v1\nkind: Secret\nmetadata: {name: other}\ndata: {x: ${REDACTED_ENV_VALUE}}\n` },
      stored,
    ).manifests;
    expect(restored).toContain("password: aHVudGVyMi1kYXRh");
    expect(restored).toContain("aHVudGVyMi1hbm5vdGF0aW9u");
    expect(restored).toContain("token: new-token");
    expect(restored).toContain("replicas: 2");
    expect(restored).not.toContain(REDACTED_ENV_VALUE);
    // Manifests hidden whole come back whole.
    expect(restoreTargetSecrets({ manifests: REDACTED_ENV_VALUE }, stored).manifests).toBe(manifests);
  });

  it("userData is hidden from a reader who may not edit (the default), shown to an editor, and kept when sent back as the marker", () => {
    const asg = { credential: "aws", region: "us-east-1", imageId: "ami-0123456789abcdef0", userData: "#!/bin/sh\nexport PW=hunter2\n" };
    expect(redactTargetSecrets(asg).userData).toBe(REDACTED_ENV_VALUE);
    expect(redactTargetSecrets(asg, { canEdit: false }).userData).toBe(REDACTED_ENV_VALUE);
    expect(redactTargetSecrets(asg, { canEdit: true }).userData).toBe(asg.userData);
    expect(restoreTargetSecrets({ ...asg, userData: REDACTED_ENV_VALUE }, asg).userData).toBe(asg.userData);
    expect(restoreTargetSecrets({ ...asg, userData: REDACTED_ENV_VALUE }, {})).not.toHaveProperty("userData");
  });
});
