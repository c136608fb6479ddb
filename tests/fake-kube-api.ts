// A stand-in Kubernetes API on loopback that answers only SelfSubjectAccessReviews, for the tests of saving a
// kubernetes credential without the control plane (tests/control-plane/ has the real one). A request without the
// expected bearer token gets 401; a review of a verb in `deny` is answered allowed: false.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeKubeApi {
  url: string;
  token: string;
  /** "verb group/resource" (core group: "verb resource") answered allowed: false. */
  deny: Set<string>;
  reviews: number;
  kubeconfig: (opts?: { token?: string; server?: string }) => string;
  close: () => Promise<void>;
}

export async function startFakeKubeApi(token = `fake-${Math.random().toString(36).slice(2)}-token`): Promise<FakeKubeApi> {
  const api: Omit<FakeKubeApi, "url" | "close"> = {
    token,
    deny: new Set(),
    reviews: 0,
    kubeconfig: () => "",
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${api.token}`)
        return json(401, {
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          message: "Unauthorized",
          reason: "Unauthorized",
          code: 401,
        });
      if (req.method === "POST" && req.url?.startsWith("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")) {
        api.reviews++;
        const review = JSON.parse(body) as { spec: { resourceAttributes: { verb: string; group?: string; resource: string } } };
        const { verb, group, resource } = review.spec.resourceAttributes;
        const allowed = !api.deny.has(`${verb} ${group ? `${group}/` : ""}${resource}`);
        return json(201, { ...review, status: { allowed } });
      }
      json(404, { kind: "Status", apiVersion: "v1", status: "Failure", message: "not served by the fake", code: 404 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(api, {
    url,
    kubeconfig: (opts: { token?: string; server?: string } = {}) => kubeconfigYaml(opts.server ?? url, opts.token ?? api.token),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A kubeconfig with one cluster, one token user and one context ("test"); an http server is marked insecure. */
export function kubeconfigYaml(server: string, token: string, extraUser = ""): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: test",
    "  cluster:",
    `    server: ${server}`,
    // The client sends a token over plain http only when the kubeconfig says so (the fake has no TLS).
    ...(server.startsWith("http:") ? ["    insecure-skip-tls-verify: true"] : []),
    "users:",
    "- name: tester",
    "  user:",
    `    token: ${token}`,
    ...(extraUser ? [extraUser] : []),
    "contexts:",
    "- name: test",
    "  context:",
    "    cluster: test",
    "    user: tester",
    "current-context: test",
    "",
  ].join("\n");
}
