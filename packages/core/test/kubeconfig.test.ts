// Kubeconfigs parsed, then judged (core targets/kubeconfig.ts): every spelling of a field that names a file, a command, an
// auth provider, a proxy or an identity is refused with the field's path, YAML aliases and merge keys are refused,
// a token that could not be an HTTP header value is refused, and no message quotes a value of the file.
import { describe, expect, it } from "vitest";
import { validateKubeconfig } from "../src/targets/kubeconfig";

const SECRET = "s3cr3t-kubeconfig-token-value";

const kubeconfig = (user: string, cluster = "") =>
  [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: test",
    "  cluster:",
    "    server: https://127.0.0.1:6443",
    "    certificate-authority-data: Q0EK",
    ...(cluster ? [cluster] : []),
    "users:",
    "- name: tester",
    "  user:",
    user,
    "contexts:",
    "- name: test",
    "  context:",
    "    cluster: test",
    "    user: tester",
    "current-context: test",
    "",
  ].join("\n");

describe("kubeconfig validation", () => {
  it("accepts what the file itself holds and answers only the chosen context, cluster and user", () => {
    const v = validateKubeconfig(kubeconfig(`    token: ${SECRET}`));
    expect(v).toEqual({
      ok: true,
      config: {
        context: { name: "test", cluster: "test", user: "tester" },
        cluster: { name: "test", server: "https://127.0.0.1:6443", skipTLSVerify: false, caData: "Q0EK" },
        user: { name: "tester", token: SECRET },
      },
    });
  });

  it("refuses every encoding of a file, command, provider, proxy or impersonation field, naming its path, never a value", () => {
    const cases: [string, string, string][] = [
      ["    token-file: /etc/hostname", "users[0].user", "token-file"],
      ['    "token\\x2dfile": /etc/hostname', "users[0].user", "token-file"],
      ["    'token-file': /etc/hostname", "users[0].user", "token-file"],
      ["    tokenFile: /etc/hostname", "users[0].user", "tokenFile"],
      ["    ? token-file\n    : /etc/hostname", "users[0].user", "token-file"],
      ["    exec: {command: /bin/sh, apiVersion: client.authentication.k8s.io/v1}", "users[0].user", "exec"],
      ["    auth-provider: {name: oidc}", "users[0].user", "auth-provider"],
      ["    client-certificate: /etc/ssl/cert.pem", "users[0].user", "client-certificate"],
      ["    client-key: /etc/ssl/key.pem", "users[0].user", "client-key"],
      ["    as: system:admin", "users[0].user", "as"],
    ];
    for (const [line, where, key] of cases) {
      const v = validateKubeconfig(kubeconfig(`    token: ${SECRET}\n${line}`));
      expect(v.ok, line).toBe(false);
      expect(!v.ok && v.message, line).toMatch(new RegExp(`^${where.replace(/[[\]]/g, "\\$&")}: "${key}" is not accepted`));
      expect(JSON.stringify(v)).not.toContain(SECRET);
      expect(JSON.stringify(v)).not.toContain("/etc/");
    }
    // A flow-style user (the whole mapping on one line).
    const flow = kubeconfig("    {token-file: /etc/hostname}").replace("  user:\n    {", "  user: {");
    expect(validateKubeconfig(flow)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^users\[0\]\.user: "token-file" is not accepted/),
    });
    for (const [field, value] of [
      ["certificate-authority", "/etc/ssl/ca.pem"],
      ["proxy-url", "http://127.0.0.1:3128"],
    ]) {
      const v = validateKubeconfig(kubeconfig(`    token: ${SECRET}`, `    ${field}: ${value}`));
      expect(v).toMatchObject({
        ok: false,
        message: expect.stringMatching(new RegExp(`^clusters\\[0\\]\\.cluster: "${field}" is not accepted`)),
      });
    }
  });

  it("refuses YAML aliases and merge keys, whatever they would bring in", () => {
    const anchored = `x-anchor: &a {token-file: /etc/hostname}\n${kubeconfig("    <<: *a")}`;
    expect(validateKubeconfig(anchored)).toMatchObject({ ok: false, message: expect.stringMatching(/alias|merge key/) });
    const aliasedValue = kubeconfig("    token: *t").replace("kind: Config", "kind: &t Config");
    expect(validateKubeconfig(aliasedValue)).toMatchObject({ ok: false, message: expect.stringContaining("YAML alias") });
    const inlineMerge = kubeconfig("    <<: {token-file: /etc/hostname}");
    expect(validateKubeconfig(inlineMerge)).toMatchObject({ ok: false, message: expect.stringContaining("merge key") });
    const yaml11 = `%YAML 1.1\n---\n${inlineMerge}`;
    expect(validateKubeconfig(yaml11).ok).toBe(false);
  });

  it("refuses a token that is not a legal header value, without quoting it", () => {
    for (const token of ['"abc\\ndef"', '"tab\\there"', "'with space'", '"nul\\0x"']) {
      const v = validateKubeconfig(kubeconfig(`    token: ${token}`));
      expect(v).toEqual({
        ok: false,
        message: "users[0].user.token: must be visible ASCII characters only (no spaces, line breaks or control characters)",
      });
    }
  });

  it("names a YAML error by its position only, and a missing context by name", () => {
    const broken = validateKubeconfig(`token: ${SECRET}\n  : - [`);
    expect(broken).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^the kubeconfig is not valid YAML \(\w+ at line \d+, column \d+\)$/),
    });
    expect(JSON.stringify(broken)).not.toContain(SECRET);
    expect(validateKubeconfig(kubeconfig(`    token: ${SECRET}`), "prod")).toEqual({
      ok: false,
      message: 'the kubeconfig has no context "prod" (it has: test)',
    });
    expect(validateKubeconfig("just text").ok).toBe(false);
  });
});
