// Hostile input: kubeconfigs. An owner (or whoever holds an owner's token) saves a kubeconfig whose fields would make
// the worker read one of its files, run a program, go through a proxy, or talk to a host of the caller's choosing.
// Every encoding of such a field is refused before the library sees it: the 422 names the field, the file's content
// (a sentinel) never appears in any answer, and the loopback server named as `server` receives no request.
// On main the YAML escape "token\x2dfile" and aliases passed a text pattern, and the worker read the file.
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileServices } from "../file-services";
import { openTestStack, shortRamp, testWebUrl, waitForFinal } from "../helpers";

const web = testWebUrl();
const SENTINEL = `opsbench-sentinel-${randomBytes(12).toString("hex")}`;
const dir = mkdtempSync(path.join(os.tmpdir(), "creds-kubeconfig-"));
// Ends in a newline, as the file on main did: "Bearer <content>\n is not a legal HTTP header value" echoed it.
const sentinelFile = path.join(dir, "token");
writeFileSync(sentinelFile, `${SENTINEL}\n`);
const TOKEN = `hostile-kube-token-${randomBytes(6).toString("hex")}`;

/** A loopback "API server" that answers everything 200 and counts what reached it. */
const seen: string[] = [];
const listener = http.createServer((req, res) => {
  seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
  res.writeHead(200, { "content-type": "application/json" });
  res.end("{}");
});
let server = "";
let stack: Awaited<ReturnType<typeof openTestStack>>;

beforeAll(async () => {
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  server = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  stack = await openTestStack();
});
afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
  await stack?.close();
});

/** The kubeconfig with `user` as the user's fields (indented under `user:`), `cluster` more cluster fields, `head` lines first. */
function kubeconfig({ user = `    token: ${TOKEN}`, cluster = "", head = "" } = {}): string {
  return [
    ...(head ? [head] : []),
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: test",
    "  cluster:",
    `    server: ${server}`,
    "    insecure-skip-tls-verify: true",
    ...(cluster ? [cluster] : []),
    "users:",
    "- name: tester",
    ...(user.startsWith("  user:") ? [user] : ["  user:", user]),
    "contexts:",
    "- name: test",
    "  context:",
    "    cluster: test",
    "    user: tester",
    "current-context: test",
    "",
  ].join("\n");
}

async function save(name: string, kubeconfigText: string) {
  const res = await fetch(`${web}/api/v1/credentials`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, secret: { kind: "kubernetes", kubeconfig: kubeconfigText } }),
  });
  const text = await res.text();
  let message = "";
  try {
    message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? "";
  } catch {}
  return { status: res.status, text, message };
}

describe("hostile kubeconfigs", () => {
  it("refuses every encoding of a file, exec, provider or proxy field before the library sees it; the 422 names the field", async () => {
    const f = sentinelFile;
    const cases: { name: string; text: string; names: RegExp }[] = [
      { name: "token-file", text: kubeconfig({ user: `    token-file: ${f}` }), names: /users\[0\]\.user: "token-file" is not accepted/ },
      {
        name: "escaped",
        text: kubeconfig({ user: `    "token\\x2dfile": ${f}` }),
        names: /users\[0\]\.user: "token-file" is not accepted/,
      },
      { name: "camel", text: kubeconfig({ user: `    tokenFile: ${f}` }), names: /users\[0\]\.user: "tokenFile" is not accepted/ },
      { name: "flow", text: kubeconfig({ user: `  user: {token-file: ${f}}` }), names: /users\[0\]\.user: "token-file" is not accepted/ },
      {
        name: "alias",
        text: kubeconfig({ head: `x-user: &u {token-file: ${f}}`, user: "  user: *u" }),
        names: /YAML alias/,
      },
      {
        name: "merge",
        text: kubeconfig({ head: `x-user: &u {token-file: ${f}}`, user: "    <<: *u" }),
        names: /YAML (alias|merge key)/,
      },
      {
        name: "exec",
        text: kubeconfig({
          user: `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n      args: ["-c", "cat ${f}"]`,
        }),
        names: /users\[0\]\.user: "exec" is not accepted/,
      },
      {
        name: "provider",
        text: kubeconfig({ user: `    auth-provider:\n      name: gcp\n      config: {cmd-path: /bin/cat, cmd-args: ${f}}` }),
        names: /users\[0\]\.user: "auth-provider" is not accepted/,
      },
      {
        name: "proxy",
        text: kubeconfig({ cluster: `    proxy-url: ${server}` }),
        names: /clusters\[0\]\.cluster: "proxy-url" is not accepted/,
      },
      {
        name: "cert",
        text: kubeconfig({ user: `    client-certificate: ${f}\n    client-key: ${f}` }),
        names: /users\[0\]\.user: "client-certificate", "client-key" are not accepted/,
      },
      {
        name: "ca",
        text: kubeconfig({ cluster: `    certificate-authority: ${f}` }),
        names: /clusters\[0\]\.cluster: "certificate-authority" is not accepted/,
      },
    ];
    const wrong: string[] = [];
    for (const c of cases) {
      const answer = await save(`hostile-${c.name}`, c.text);
      if (answer.status !== 422) wrong.push(`${c.name}: ${answer.status} ${answer.text.slice(0, 300)}`);
      else if (!c.names.test(answer.message)) wrong.push(`${c.name}: the 422 does not name the field: ${answer.text.slice(0, 300)}`);
      if (answer.text.includes(SENTINEL)) wrong.push(`${c.name}: the file's content came back`);
      if (answer.text.includes(TOKEN)) wrong.push(`${c.name}: the token came back`);
    }
    expect(wrong).toEqual([]);
    // The library never got one of them: nothing reached the server they name, not even a review.
    expect(seen).toEqual([]);
    const listed = await (await fetch(`${web}/api/v1/credentials`)).json();
    expect(listed).toEqual([]);
  });

  it("refuses a token no HTTP header may carry, without echoing it", async () => {
    const secret = `${TOKEN}-second-line`;
    const answer = await save("hostile-newline", kubeconfig({ user: `    token: "${TOKEN}\\n${secret}"` }));
    expect(answer.status).toBe(422);
    expect(answer.text).toContain(
      "users[0].user.token: must be visible ASCII characters only (no spaces, line breaks or control characters)",
    );
    expect(answer.text).not.toContain(TOKEN);
    expect(seen).toEqual([]);
  });

  it("refuses a server that is not loopback and not on the admin's allowlist, before connecting", async () => {
    const started = Date.now();
    const text = kubeconfig().replace(`server: ${server}`, "server: https://10.1.2.3:6443");
    const answer = await save("hostile-remote", text);
    expect(answer.status).toBe(422);
    expect(answer.text).toContain("the kubeconfig's server 10.1.2.3 is refused");
    expect(answer.text).toContain("OPSBENCH_LOAD_ALLOWED_HOSTS");
    // Refused by the policy, not after a connection attempt timed out (on main: "cannot reach the cluster...").
    expect(Date.now() - started).toBeLessThan(10_000);
    // Nor a port of opsbench's own services on loopback (here Postgres), whatever the allowlist says.
    const postgres = new URL(fileServices().databaseUrl);
    const own = await save("hostile-postgres", kubeconfig().replace(`server: ${server}`, `server: http://127.0.0.1:${postgres.port}`));
    expect(own.status).toBe(422);
    expect(own.message).toContain(`the kubeconfig's server is refused: the target's port ${postgres.port} is Postgres's`);
  });

  it("a stored kubeconfig with a file field (sealed past the API) fails the run before deploy; the worker never reads the file", async () => {
    const { db, scope } = stack;
    const name = "stored-hostile";
    const secret = { kind: "kubernetes" as const, kubeconfig: kubeconfig({ user: `    "token\\x2dfile": ${sentinelFile}` }) };
    const sealed = scope.credentials.seal(name, secret, fileServices().secretKey);
    await db.credential.create({ data: { workspaceId: scope.workspaceId, name, kind: "kubernetes", secret: sealed } });
    const target = await fetch(`${web}/api/v1/targets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "kube-stored", kind: "kubernetes", spec: { credential: name, image: "registry.invalid/app:1" } }),
    });
    expect(target.status).toBe(201);
    const workload = await fetch(`${web}/api/v1/workloads`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(shortRamp("kube-load", { vus: 1, holdSeconds: 1 })),
    });
    expect(workload.status).toBe(201);
    const run = await fetch(`${web}/api/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ target: "kube-stored", workload: "kube-load" }),
    });
    expect(run.status).toBe(201);
    const view = await waitForFinal(db, ((await run.json()) as { id: string }).id, 120_000);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(/users\[0\]\.user: "token-file" is not accepted/);
    expect(JSON.stringify(view)).not.toContain(SENTINEL);
    expect(seen).toEqual([]);
  });
});
