// Hostile input: an editor and owners' credentials. An editor names a credential an owner saved (a kubeconfig) and
// supplies the image; unless an owner opened that credential to editors, the API refuses the target, the run and the
// study (403 naming the credential) and nothing is deployed: the worker checks the requester's role again before
// deploy, so a run queued past the API deploys nothing either. Once the owner opens the credential, the editor's run
// goes past that check. And a run whose load would be refused (a kubernetes endpoint off the allowlist) is refused
// before the namespace is made (on main the deploy came first).
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createApiToken, storedAuthSecret } from "@opsbench/db";
import { createAuth } from "@opsbench/db/auth";
import { enqueueRun } from "@opsbench/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { kubeconfigYaml } from "../fake-kube-api";
import { launchBrowser, openTestStack, shortRamp, waitForFinal } from "../helpers";
import { startSignedInWeb } from "../test-identity";

const { web, owner } = await startSignedInWeb();
const KUBE_TOKEN = `editor-test-kube-token-${randomUUID()}`;

/** A stand-in API server: says yes to every SelfSubjectAccessReview and records every other request (a deploy). */
const deployRequests: string[] = [];
let reviews = 0;
const kubeApi = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    res.setHeader("content-type", "application/json");
    if (req.method === "POST" && req.url?.startsWith("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")) {
      reviews++;
      res.writeHead(201);
      return res.end(JSON.stringify({ ...JSON.parse(body), status: { allowed: true } }));
    }
    deployRequests.push(`${req.method} ${req.url}`);
    res.writeHead(500);
    res.end(
      JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: "the test's stand-in deploys nothing", code: 500 }),
    );
  });
});

let stack: Awaited<ReturnType<typeof openTestStack>>;
let editor: { id: string; token: string };
let credentialId = "";

const call = async (token: string, method: string, url: string, body?: unknown) => {
  const res = await fetch(`${web}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: { message: string } } };
};

/** GET /api/v1/credentials: the workspace's credentials, as much of each as these tests read. */
const credentialList = z.array(z.object({ name: z.string(), editorsMayDeploy: z.boolean() }));
const listedCredentials = async (token: string) => credentialList.parse((await call(token, "GET", "/api/v1/credentials")).body);

beforeAll(async () => {
  await new Promise<void>((resolve) => kubeApi.listen(0, "127.0.0.1", resolve));
  const kubeUrl = `http://127.0.0.1:${(kubeApi.address() as AddressInfo).port}`;
  stack = await openTestStack();
  const { db, scope } = stack;
  // An editor of "default" with an API token (made directly: how they joined is not this file's subject).
  const user = await db.user.create({ data: { email: "editor@creds.test", name: "editor" } });
  await db.member.create({ data: { organizationId: scope.workspaceId, userId: user.id, role: "editor" } });
  const auth = createAuth(db, { secret: await storedAuthSecret(db) });
  editor = { id: user.id, token: (await createApiToken(auth, { userId: user.id, workspaceId: scope.workspaceId }, "editor")).key };

  // The owner's kubeconfig (closed to editors by default), a workload, and a target of the owner's naming it.
  const saved = await call(owner.token, "POST", "/api/v1/credentials", {
    name: "owner-kube",
    secret: { kind: "kubernetes", kubeconfig: kubeconfigYaml(kubeUrl, KUBE_TOKEN) },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  expect(saved.body.editorsMayDeploy).toBe(false);
  credentialId = saved.body.id as string;
  expect((await call(owner.token, "POST", "/api/v1/workloads", shortRamp("one-vu", { vus: 1, holdSeconds: 1 }))).status).toBe(201);
  const target = { name: "owners-cluster", kind: "kubernetes", spec: { credential: "owner-kube", image: "registry.invalid/owner:1" } };
  expect((await call(owner.token, "POST", "/api/v1/targets", target)).status).toBe(201);
});
afterAll(async () => {
  await new Promise((resolve) => kubeApi.close(resolve));
  await stack?.close();
});

const refusal = /credential "owner-kube" is not open to editors/;

describe("credentials by role", () => {
  it("refuses an editor's target, run and study naming a credential closed to editors (403 naming it); nothing is made", async () => {
    const mine = { name: "editors-payload", kind: "kubernetes", spec: { credential: "owner-kube", image: "registry.invalid/editor:1" } };
    const answers = [
      await call(editor.token, "POST", "/api/v1/targets", mine),
      await call(editor.token, "POST", "/api/v1/runs", { target: "owners-cluster", workload: "one-vu" }),
      await call(editor.token, "POST", "/api/v1/studies", { name: "editors-study", targets: ["owners-cluster"], workloads: ["one-vu"] }),
      await call(editor.token, "POST", "/api/v1/studies", { name: "editors-inline", targets: [mine], workloads: ["one-vu"] }),
    ];
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.body)).toBe(403);
      expect(a.body.error?.message).toMatch(refusal);
    }
    expect(await stack.db.run.count()).toBe(0);
    expect(await stack.db.target.count({ where: { name: "editors-payload" } })).toBe(0);
    // The editor may not open it either: that is the owner's.
    expect((await call(editor.token, "PUT", `/api/v1/credentials/${credentialId}`, { editorsMayDeploy: true })).status).toBe(403);
    expect(deployRequests).toEqual([]);
  });

  it("the worker checks the requester's role before deploy: an editor's run queued past the API deploys nothing", async () => {
    const { db, scope, queue } = stack;
    const reviewsBefore = reviews;
    const run = await scope.runs.create({ targetName: "owners-cluster", workloadName: "one-vu", requestedBy: editor.id });
    await enqueueRun(queue, { runId: run.id });
    const view = await waitForFinal(db, run.id, 120_000);
    expect(view.status).toBe("FAILED");
    expect(view.error).toMatch(refusal);
    expect(view.error).toContain("refused before anything was deployed");
    const steps = await db.runStep.findMany({ where: { runId: run.id } });
    expect(steps.filter((s) => s.name === "PROVISION")).toEqual([]);
    // Not a namespace, not even the credential's platform check: nothing reached the cluster.
    expect(deployRequests).toEqual([]);
    expect(reviews).toBe(reviewsBefore);
  });

  it("refuses a kubernetes endpoint off the allowlist when it is saved: nothing is deployed, no run starts", async () => {
    const target = {
      name: "owners-ingress",
      kind: "kubernetes",
      spec: { credential: "owner-kube", image: "registry.invalid/owner:1", endpoint: "http://10.1.2.3:80" },
    };
    // A literal private address only the allowlist admits: refused at save, next to its field, naming the rule (the
    // worker's refusal before deploy is tested with targets saved directly: egress-remote.test.ts).
    const saved = await call(owner.token, "POST", "/api/v1/targets", target);
    expect(saved.status).toBe(422);
    expect(saved.body.error).toMatchObject({
      issues: [{ path: "spec.endpoint", message: expect.stringMatching(/^host policy, private ranges: load to 10\.1\.2\.3 refused/) }],
    });
    const run = await call(owner.token, "POST", "/api/v1/runs", { target: "owners-ingress", workload: "one-vu" });
    expect(run.status, "no such target: it was not saved").not.toBe(201);
    expect(deployRequests).toEqual([]);
  });

  it("the settings page shows the setting and the owner changes it there", async () => {
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      await context.addCookies([{ ...owner.sessionCookie, url: web }]);
      const page = await context.newPage();
      await page.goto(`${web}/settings`);
      const cell = page.getByTestId("credential-row").filter({ hasText: "owner-kube" }).getByTestId("credential-editors");
      await expect.poll(() => cell.textContent()).toContain("no (owners only)");
      await cell.getByRole("button", { name: "Open to editors" }).click();
      await expect.poll(() => cell.textContent(), { timeout: 15_000 }).toContain("yes");
      await cell.getByRole("button", { name: "Close to editors" }).click();
      await expect.poll(() => cell.textContent(), { timeout: 15_000 }).toContain("no (owners only)");
    } finally {
      await browser.close();
    }
    const listed = await listedCredentials(owner.token);
    expect(listed.find((c) => c.name === "owner-kube")?.editorsMayDeploy).toBe(false);
  });

  it("once the owner opens the credential to editors, the editor's run goes past that check", async () => {
    const opened = await call(owner.token, "PUT", `/api/v1/credentials/${credentialId}`, { editorsMayDeploy: true });
    expect(opened.status).toBe(200);
    expect(opened.body.editorsMayDeploy).toBe(true);
    const listed = await listedCredentials(owner.token);
    expect(listed.find((c) => c.name === "owner-kube")?.editorsMayDeploy).toBe(true);

    const run = await call(editor.token, "POST", "/api/v1/runs", { target: "owners-cluster", workload: "one-vu" });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect((await stack.db.run.findUniqueOrThrow({ where: { id: run.body.id as string } })).requestedBy).toBe(editor.id);
    const view = await waitForFinal(stack.db, run.body.id as string, 120_000);
    // The stand-in deploys nothing, so the run fails; but past the role check, in the deploy itself.
    expect(view.error ?? "").not.toMatch(refusal);
    expect(await stack.db.runStep.count({ where: { runId: run.body.id as string, name: "PROVISION" } })).toBe(1);
    expect(deployRequests.length).toBeGreaterThan(0);

    // A study's runs carry who asked for it, so the worker checks the same member for each of them.
    const study = await call(editor.token, "POST", "/api/v1/studies", {
      name: "editors-study-open",
      targets: ["owners-cluster"],
      workloads: ["one-vu"],
      repetitions: 2,
    });
    expect(study.status, JSON.stringify(study.body)).toBe(201);
    const rows = await stack.db.run.findMany({ where: { studyId: study.body.id as string }, select: { requestedBy: true } });
    expect(rows.map((r) => r.requestedBy)).toEqual([editor.id, editor.id]);
    expect((await stack.db.study.findUniqueOrThrow({ where: { id: study.body.id as string } })).requestedBy).toBe(editor.id);
    await call(owner.token, "POST", `/api/v1/studies/${study.body.id as string}/abort`);
  });
});
