// The kubernetes client on @kubernetes/client-node against stand-in API servers on loopback: a request ends
// when the run's signal aborts (its connection closed), a refusal names what was done, the API's reason and the
// code but never the token, and kubeconfigs that would make the worker read a file, run a program or use a proxy
// are refused before the library reads them.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parseLoadHostAllowlist } from "@opsbench/core";
import { kubeClientOf, kubernetes } from "../src";
import { kubeconfigYaml } from "../../../tests/fake-kube-api";

const TOKEN = "kube-client-test-token";
// The stand-ins listen on loopback: allowed as the test stack's workers allow it (tests/file-services.ts).
const loadHosts = parseLoadHostAllowlist(process.env.OPSBENCH_LOAD_ALLOWED_HOSTS ?? "");
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("kubernetes client", () => {
  it("ends a request that has no answer when the signal aborts, and closes its connection", async () => {
    let closed = false;
    const url = await serve((req) => req.socket.on("close", () => (closed = true)));
    const controller = new AbortController();
    const client = await kubeClientOf(
      { kind: "kubernetes", kubeconfig: kubeconfigYaml(url, TOKEN) },
      { signal: controller.signal, loadHosts },
    );
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    await expect(client.core.listNamespace()).rejects.toThrow("aborted while GET /api/v1/namespaces");
    expect(Date.now() - started).toBeLessThan(3000);
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
  });

  it("closes a call's connection once the call is over (the library makes a dispatcher per request)", async () => {
    let open = 0;
    const url = await serve((req, res) => {
      open++;
      req.socket.on("close", () => open--);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "NamespaceList", apiVersion: "v1", metadata: {}, items: [] }));
    });
    const client = await kubeClientOf({ kind: "kubernetes", kubeconfig: kubeconfigYaml(url, TOKEN) }, { loadHosts });
    for (let i = 0; i < 3; i++) expect((await client.core.listNamespace()).items).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(open).toBe(0);
  });

  it("names the reason a cluster cannot be reached: a refused connection, a port fetch never connects to", async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, "127.0.0.1", () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const refused = await kubeClientOf(
      { kind: "kubernetes", kubeconfig: kubeconfigYaml(`http://127.0.0.1:${closed}`, TOKEN) },
      { loadHosts },
    );
    await expect(refused.core.listNamespace()).rejects.toThrow(
      `cannot reach the cluster at http://127.0.0.1:${closed} (GET /api/v1/namespaces): connect ECONNREFUSED 127.0.0.1:${closed}`,
    );
    const bad = await kubeClientOf({ kind: "kubernetes", kubeconfig: kubeconfigYaml("http://127.0.0.1:6000", TOKEN) }, { loadHosts });
    await expect(bad.core.listNamespace()).rejects.toThrow(
      "cannot reach the cluster at http://127.0.0.1:6000 (GET /api/v1/namespaces): port 6000 is one of the fetch standard's blocked ports",
    );
  });

  it("refuses an answer over 16 MiB, announced or streamed without end, and closes its connection", async () => {
    let closed = 0;
    const chunk = Buffer.alloc(1024 * 1024, " ");
    const url = await serve((req, res) => {
      req.socket.on("close", () => closed++);
      if (req.url?.startsWith("/api/v1/namespaces/announced")) {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(17 * 1024 * 1024) });
        res.write("{");
        return;
      }
      // A list that never ends: the worker would hold it all in memory.
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"kind":"NamespaceList","apiVersion":"v1","items":[');
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", more);
      };
      more();
    });
    const client = await kubeClientOf({ kind: "kubernetes", kubeconfig: kubeconfigYaml(url, TOKEN) }, { loadHosts });
    await expect(client.core.listNamespace()).rejects.toThrow(
      `the cluster at ${url} answered GET /api/v1/namespaces with more than 16 MiB: refused (opsbench reads at most that of one answer)`,
    );
    await expect(client.core.readNamespace({ name: "announced" })).rejects.toThrow(
      `the cluster at ${url} answered GET /api/v1/namespaces/announced with more than 16 MiB: refused`,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(closed).toBe(2);
  });

  it("a refusal names what was done, the API's message and the code, never the token", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(403, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", status: "Failure", code: 403, message: 'namespaces is forbidden: User "ci" cannot list' }));
    });
    const ctx = { credential: { kind: "kubernetes" as const, kubeconfig: kubeconfigYaml(url, TOKEN) }, loadHosts, log: () => {} };
    const failure = kubernetes.reaper?.listRuns(ctx);
    await expect(failure).rejects.toThrow(
      `the cluster at ${url} refused listing opsbench's namespaces: forbidden (namespaces is forbidden: User "ci" cannot list)`,
    );
    await expect(failure).rejects.not.toThrow(TOKEN);
  });

  it("refuses file paths, commands and proxies before the library reads the kubeconfig, and plain http without the insecure flag", async () => {
    const url = await serve((_req, res) => res.end("{}"));
    const refusals: [string, string][] = [
      ["    token-file: /nonexistent/opsbench-token", "token-file"],
      ["    exec: {command: /bin/sh}", "exec"],
      ["    client-certificate: /etc/ssl/cert.pem", "client-certificate"],
      ["    auth-provider: {name: gcp}", "auth-provider"],
    ];
    for (const [line, key] of refusals)
      await expect(kubeClientOf({ kind: "kubernetes", kubeconfig: kubeconfigYaml(url, TOKEN, line) }, { loadHosts })).rejects.toThrow(
        `users[0].user: "${key}" is not accepted: opsbench accepts only what the kubeconfig itself holds`, // the library would read or run it while loading
      );
    const proxied = kubeconfigYaml(url, TOKEN).replace("insecure-skip-tls-verify: true", "proxy-url: http://127.0.0.1:9");
    await expect(kubeClientOf({ kind: "kubernetes", kubeconfig: proxied }, { loadHosts })).rejects.toThrow(
      'clusters[0].cluster: "proxy-url" is not accepted',
    );
    const plain = kubeconfigYaml(url, TOKEN).replace("    insecure-skip-tls-verify: true\n", "");
    await expect(kubeClientOf({ kind: "kubernetes", kubeconfig: plain }, { loadHosts })).rejects.toThrow(
      `the kubeconfig's server ${url} is plain http: set insecure-skip-tls-verify: true on its cluster to use it anyway`,
    );
  });

  it("contacts a server only where the load-host policy allows: loopback, or a host on the admin's allowlist", async () => {
    const remote = kubeconfigYaml("https://10.1.2.3:6443", TOKEN);
    await expect(kubeClientOf({ kind: "kubernetes", kubeconfig: remote })).rejects.toThrow(
      "the kubeconfig's server 10.1.2.3 is refused: opsbench talks only to a cluster on a host the admin allows (OPSBENCH_LOAD_ALLOWED_HOSTS in the worker's environment, now empty",
    );
    // Loopback is where opsbench's own services listen: a cluster there only as an allowed address and port.
    const local = kubeconfigYaml("https://127.0.0.1:6443", TOKEN);
    await expect(kubeClientOf({ kind: "kubernetes", kubeconfig: local })).rejects.toThrow(
      "the kubeconfig's server 127.0.0.1:6443 is refused: a cluster on this machine's loopback (where opsbench's own services listen) only when the admin allows that address and port, as \"127.0.0.1:6443\"",
    );
    expect(
      (await kubeClientOf({ kind: "kubernetes", kubeconfig: local }, { loadHosts: parseLoadHostAllowlist("127.0.0.1:6443") })).server,
    ).toBe("https://127.0.0.1:6443");
    // And never a port of opsbench's own services, whatever the allowlist says.
    await expect(
      kubeClientOf(
        { kind: "kubernetes", kubeconfig: kubeconfigYaml("https://127.0.0.1:5432", TOKEN) },
        {
          loadHosts: parseLoadHostAllowlist("127.0.0.1:1024-65535"),
          protectedPorts: [{ host: "127.0.0.1", port: 5432, service: "Postgres" }],
        },
      ),
    ).rejects.toThrow("the kubeconfig's server is refused: the target's port 5432 is Postgres's, one of opsbench's own services");
    const allowed = await kubeClientOf({ kind: "kubernetes", kubeconfig: remote }, { loadHosts: parseLoadHostAllowlist("10.1.0.0/16") });
    expect(allowed.server).toBe("https://10.1.2.3:6443");
  });
});
