// The authorization matrix, generated from the route contracts (apps/web/lib/api/contracts.ts): every /api/v1
// route x {anonymous, viewer, editor, owner, member of another workspace, revoked token} answers the status its
// contract's role implies. A route without a row below fails the test (and the type check).
import {
  attachInvitationSecret,
  createApiToken,
  createDb,
  type Db,
  defaultWorkspaceId,
  INVITATION_HEADER,
  setOpenSignUp,
  storedAuthSecret,
} from "@opsbench/db";
import { createAuth } from "@opsbench/db/auth";
import { roleAllows, type WorkspaceRole } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_CONTRACTS, type RouteContract, type RouteKey } from "@/lib/api/contracts";
import { testDatabaseUrl } from "../../../tests/helpers";
import { startSignedInWeb } from "../../../tests/test-identity";

// This file's web app requires sign-in (the other web tests run with OPSBENCH_AUTH=off); its first account is `owner`.
const { web, owner } = await startSignedInWeb();

type Ids = { run: string; study: string; share: string; credential: string; schedule: string; webhook: string; exporter: string };
interface Row {
  /** The URL to call, given the ids of rows in the *other* workspace than the caller's. */
  url: (ids: Ids) => string;
  body?: unknown;
  /** What a member whose role suffices gets: 404 for another workspace's id, else the route's answer to this input. */
  allowed: number;
}

// A POST with an empty object is refused as invalid input (422) once the caller is let in.
const MATRIX: Record<RouteKey, Row> = {
  "GET /api/v1/targets": { url: () => "/api/v1/targets", allowed: 200 },
  "POST /api/v1/targets": { url: () => "/api/v1/targets", body: {}, allowed: 422 },
  "GET /api/v1/targets/{id}/verification": { url: () => "/api/v1/targets/matrix-no-such-target/verification", allowed: 404 },
  "GET /api/v1/workloads": { url: () => "/api/v1/workloads", allowed: 200 },
  "POST /api/v1/workloads": { url: () => "/api/v1/workloads", body: {}, allowed: 422 },
  "GET /api/v1/workloads/presets": { url: () => "/api/v1/workloads/presets", allowed: 200 },
  "GET /api/v1/runs": { url: () => "/api/v1/runs", allowed: 200 },
  "GET /api/v1/series": { url: () => "/api/v1/series", allowed: 200 },
  // Another workspace's series is no series of the caller's: 404 as an unknown key.
  "GET /api/v1/series/{key}/points": { url: () => "/api/v1/series/matrix-no-such-series/points", allowed: 404 },
  "POST /api/v1/runs": { url: () => "/api/v1/runs", body: {}, allowed: 422 },
  // An unknown field, so an editor's call is refused (422) and no run is made.
  "POST /api/v1/runs/external": { url: () => "/api/v1/runs/external", body: { nope: 1 }, allowed: 422 },
  "GET /api/v1/runs/{id}": { url: (i) => `/api/v1/runs/${i.run}`, allowed: 404 },
  "POST /api/v1/imports/k6": { url: () => "/api/v1/imports/k6", body: {}, allowed: 422 },
  "GET /api/v1/runs/{id}/summary": { url: (i) => `/api/v1/runs/${i.run}/summary?from=0&to=1`, allowed: 404 },
  "GET /api/v1/runs/{id}/events": { url: (i) => `/api/v1/runs/${i.run}/events`, allowed: 404 },
  "POST /api/v1/runs/{id}/baseline": { url: (i) => `/api/v1/runs/${i.run}/baseline`, allowed: 404 },
  "GET /api/v1/runs/{id}/baseline": { url: (i) => `/api/v1/runs/${i.run}/baseline?runs=3`, allowed: 404 },
  "GET /api/v1/baselines": { url: () => "/api/v1/baselines", allowed: 200 },
  "GET /api/v1/runs/{id}/artifacts": { url: (i) => `/api/v1/runs/${i.run}/artifacts`, allowed: 404 },
  "GET /api/v1/runs/{id}/artifacts/{name}": { url: (i) => `/api/v1/runs/${i.run}/artifacts/summary.json`, allowed: 404 },
  "GET /api/v1/studies": { url: () => "/api/v1/studies", allowed: 200 },
  "POST /api/v1/studies": { url: () => "/api/v1/studies", body: {}, allowed: 422 },
  "GET /api/v1/studies/plan": { url: () => "/api/v1/studies/plan?repetitions=3", allowed: 200 },
  "GET /api/v1/studies/{id}": { url: (i) => `/api/v1/studies/${i.study}`, allowed: 404 },
  "POST /api/v1/studies/{id}/abort": { url: (i) => `/api/v1/studies/${i.study}/abort`, allowed: 404 },
  "GET /api/v1/studies/{id}/tables": { url: (i) => `/api/v1/studies/${i.study}/tables?table=cost`, allowed: 404 },
  "GET /api/v1/studies/{id}/events": { url: (i) => `/api/v1/studies/${i.study}/events`, allowed: 404 },
  "GET /api/v1/comparisons": { url: () => "/api/v1/comparisons", allowed: 422 },
  "POST /api/v1/comparisons": { url: () => "/api/v1/comparisons", body: {}, allowed: 422 },
  "GET /api/v1/comparisons/export": { url: () => "/api/v1/comparisons/export", allowed: 422 },
  "GET /api/v1/shares": { url: () => "/api/v1/shares", allowed: 200 },
  "POST /api/v1/shares": { url: () => "/api/v1/shares", body: {}, allowed: 422 },
  "DELETE /api/v1/shares/{id}": { url: (i) => `/api/v1/shares/${i.share}`, allowed: 404 },
  "GET /api/v1/public/shares/{token}": { url: () => `/api/v1/public/shares/${"x".repeat(43)}`, allowed: 404 },
  "POST /api/v1/runs/{id}/abort": { url: (i) => `/api/v1/runs/${i.run}/abort`, allowed: 404 },
  // A valid body (nothing set), so the other workspace's run is what refuses it.
  "PUT /api/v1/runs/{id}/provenance": { url: (i) => `/api/v1/runs/${i.run}/provenance`, body: {}, allowed: 404 },
  // Public, but only for the run's own ingest token: no caller here has one (an account's token is not it).
  "POST /api/v1/runs/{id}/ingest": { url: (i) => `/api/v1/runs/${i.run}/ingest`, body: {}, allowed: 401 },
  "GET /api/v1/limits": { url: () => "/api/v1/limits", allowed: 200 },
  // An invalid value, so the owner's call is refused (422) and the limits stay as they are.
  "PUT /api/v1/limits": { url: () => "/api/v1/limits", body: { maxVUs: -1 }, allowed: 422 },
  "GET /api/v1/instance/ceilings": { url: () => "/api/v1/instance/ceilings", allowed: 200 },
  // Instance admin only (the file's first account, `owner`); an invalid value, so the admin's call is refused (422).
  "PUT /api/v1/instance/ceilings": { url: () => "/api/v1/instance/ceilings", body: { maxVUs: -1 }, allowed: 422 },
  "GET /api/v1/audit": { url: () => "/api/v1/audit", allowed: 200 },
  "GET /api/v1/credentials": { url: () => "/api/v1/credentials", allowed: 200 },
  "POST /api/v1/credentials": { url: () => "/api/v1/credentials", body: {}, allowed: 422 },
  "DELETE /api/v1/credentials/{id}": { url: (i) => `/api/v1/credentials/${i.credential}`, allowed: 404 },
  "PUT /api/v1/credentials/{id}": { url: (i) => `/api/v1/credentials/${i.credential}`, body: { editorsMayDeploy: true }, allowed: 404 },
  // Names only; viewers get 403 (a secret's name is the workspace's business, its value nobody's).
  "GET /api/v1/secrets": { url: () => "/api/v1/secrets", allowed: 200 },
  "POST /api/v1/secrets": { url: () => "/api/v1/secrets", body: {}, allowed: 422 },
  "DELETE /api/v1/secrets/{id}": { url: () => "/api/v1/secrets/MATRIX_NO_SUCH_SECRET", allowed: 404 },
  "GET /api/v1/openapi.json": { url: () => "/api/v1/openapi.json", allowed: 200 },
  "GET /api/v1/webhooks": { url: () => "/api/v1/webhooks", allowed: 200 },
  "POST /api/v1/webhooks": { url: () => "/api/v1/webhooks", body: {}, allowed: 422 },
  // A valid body (nothing changed), so the other workspace's endpoint is what refuses it.
  "PUT /api/v1/webhooks/{id}": { url: (i) => `/api/v1/webhooks/${i.webhook}`, body: {}, allowed: 404 },
  "DELETE /api/v1/webhooks/{id}": { url: (i) => `/api/v1/webhooks/${i.webhook}`, allowed: 404 },
  "POST /api/v1/webhooks/{id}/test": { url: (i) => `/api/v1/webhooks/${i.webhook}/test`, allowed: 404 },
  "GET /api/v1/webhooks/deliveries": { url: () => "/api/v1/webhooks/deliveries", allowed: 200 },
  "GET /api/v1/exporters": { url: () => "/api/v1/exporters", allowed: 200 },
  "POST /api/v1/exporters": { url: () => "/api/v1/exporters", body: {}, allowed: 422 },
  // A valid body (nothing changed), so the other workspace's exporter is what refuses it.
  "PUT /api/v1/exporters/{id}": { url: (i) => `/api/v1/exporters/${i.exporter}`, body: {}, allowed: 404 },
  "DELETE /api/v1/exporters/{id}": { url: (i) => `/api/v1/exporters/${i.exporter}`, allowed: 404 },
  "GET /api/v1/exporters/exports": { url: () => "/api/v1/exporters/exports", allowed: 200 },
  "GET /api/v1/notifications/smtp": { url: () => "/api/v1/notifications/smtp", allowed: 200 },
  "PUT /api/v1/notifications/smtp": { url: () => "/api/v1/notifications/smtp", body: {}, allowed: 422 },
  // Nothing is set in either workspace: the owner's call answers { deleted: false }.
  "DELETE /api/v1/notifications/smtp": { url: () => "/api/v1/notifications/smtp", allowed: 200 },
  // A valid report about the other workspace's run: 404 once the caller is let in.
  "POST /api/v1/runs/{id}/gate-tripped": {
    url: (i) => `/api/v1/runs/${i.run}/gate-tripped`,
    body: { baselineRunId: "00000000-0000-4000-8000-000000000000", rules: [{ rule: "p95 > +10%", message: "p95 +25%" }] },
    allowed: 404,
  },
  "DELETE /api/v1/runs/{id}": { url: (i) => `/api/v1/runs/${i.run}`, allowed: 404 },
  "DELETE /api/v1/studies/{id}": { url: (i) => `/api/v1/studies/${i.study}`, allowed: 404 },
  "DELETE /api/v1/targets/{id}": { url: () => "/api/v1/targets/matrix-no-such-target", allowed: 404 },
  "DELETE /api/v1/workloads/{id}": { url: () => "/api/v1/workloads/matrix-no-such-workload", allowed: 404 },
  "PUT /api/v1/workloads/{id}": { url: () => "/api/v1/workloads/matrix-no-such-workload", body: { name: "matrix-renamed" }, allowed: 404 },
  "GET /api/v1/retention": { url: () => "/api/v1/retention", allowed: 200 },
  // An invalid value, so the owner's call is refused (422) and the setting stays as it is.
  "PUT /api/v1/retention": { url: () => "/api/v1/retention", body: { seriesRetentionDays: 0 }, allowed: 422 },
  "GET /api/v1/schedules": { url: () => "/api/v1/schedules", allowed: 200 },
  "POST /api/v1/schedules": { url: () => "/api/v1/schedules", body: {}, allowed: 422 },
  "GET /api/v1/schedules/{id}": { url: (i) => `/api/v1/schedules/${i.schedule}`, allowed: 404 },
  // A valid body, so the other workspace's schedule is what refuses it (its target is never looked up).
  "PUT /api/v1/schedules/{id}": {
    url: (i) => `/api/v1/schedules/${i.schedule}`,
    body: { name: "matrix", what: { kind: "run", target: "matrix", workload: "matrix" }, cron: "0 3 * * *" },
    allowed: 404,
  },
  "DELETE /api/v1/schedules/{id}": { url: (i) => `/api/v1/schedules/${i.schedule}`, allowed: 404 },
  "POST /api/v1/schedules/{id}/pause": { url: (i) => `/api/v1/schedules/${i.schedule}/pause`, allowed: 404 },
  "POST /api/v1/schedules/{id}/resume": { url: (i) => `/api/v1/schedules/${i.schedule}/resume`, allowed: 404 },
};

type Caller = {
  name: string;
  headers: Record<string, string>;
  role: WorkspaceRole | null;
  workspace: "default" | "other" | null;
  /** The instance admin (InstanceSettings.adminUserId): only the first account. */
  instanceAdmin?: true;
};

let db: Db;
const callers: Caller[] = [];
const ids: Record<"default" | "other", Ids> = {
  default: { run: "", study: "", share: "", credential: "", schedule: "", webhook: "", exporter: "" },
  other: { run: "", study: "", share: "", credential: "", schedule: "", webhook: "", exporter: "" },
};

/** A run, a study, a share link, a credential, a schedule, a webhook endpoint and an exporter in the workspace, made directly in the database (nothing is queued). */
async function seed(workspaceId: string): Promise<Ids> {
  const run = await db.run.create({ data: { workspaceId, status: "SUCCEEDED", source: "k6-import", name: "matrix" } });
  const study = await db.study.create({ data: { workspaceId, name: "matrix", status: "SUCCEEDED" } });
  const share = await db.shareLink.create({
    data: { workspaceId, tokenHash: `matrix-${workspaceId}`, kind: "run", subject: { runIds: [run.id] } },
  });
  // Never opened here: the matrix only needs a row to address.
  const credential = await db.credential.create({ data: { workspaceId, name: "matrix", kind: "kubernetes", secret: "v1.x.x.x" } });
  // Paused, with no job scheduler: nothing ticks.
  const schedule = await db.schedule.create({
    data: {
      workspaceId,
      name: "matrix",
      kind: "run",
      targetName: "matrix",
      workloadName: "matrix",
      cron: "0 3 * * *",
      timeZone: "UTC",
      paused: true,
    },
  });
  const webhook = await db.webhookEndpoint.create({
    data: { workspaceId, url: "https://hooks.example.com/matrix", events: ["run.failed"], secret: "v1.x.x.x", createdBy: "matrix" },
  });
  const exporter = await db.resultsExporter.create({
    data: { workspaceId, name: "matrix", kind: "otlp-http", url: "https://otel.example.com/v1/metrics", createdBy: "matrix" },
  });
  return {
    run: run.id,
    study: study.id,
    share: share.id,
    credential: credential.id,
    schedule: schedule.id,
    webhook: webhook.id,
    exporter: exporter.id,
  };
}

const sessionHeaders = (setCookie: string | null): Record<string, string> => {
  const cookie = setCookie?.match(/^[^;]+/)?.[0];
  if (!cookie) throw new Error("no session cookie");
  // Cookie requests come from the app's own pages: same origin.
  return { cookie, origin: web };
};

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 2 });
  const auth = createAuth(db, { secret: await storedAuthSecret(db) });
  const defaultId = await defaultWorkspaceId(db);
  const password = "matrix-password-1";

  // A viewer invited to "default" (signed up and accepted through the invitation link's secret), signed in by
  // session; an editor there by API token.
  const invited = await db.invitation.create({
    data: {
      organizationId: defaultId,
      email: "viewer@matrix.test",
      role: "viewer",
      inviterId: (await db.user.findFirstOrThrow()).id,
      expiresAt: new Date(Date.now() + 3_600_000),
    },
  });
  const secret = await attachInvitationSecret(db, invited.id);
  const viewer = await auth.api.signUpEmail({
    body: { email: "viewer@matrix.test", password, name: "viewer" },
    headers: new Headers({ [INVITATION_HEADER]: secret }),
    returnHeaders: true,
  });
  const viewerHeaders = sessionHeaders(viewer.headers.get("set-cookie"));
  // The link's secret rides along in the body (checked by opsbench's hook; Better Auth's own schema ignores it).
  const acceptance = { invitationId: invited.id, secret };
  await auth.api.acceptInvitation({ headers: new Headers(viewerHeaders), body: acceptance });

  // The others sign up while the admin has sign-up open (they land in no workspace) and are placed directly.
  await setOpenSignUp(db, true);
  const editor = await auth.api.signUpEmail({ body: { email: "editor@matrix.test", password, name: "editor" } });
  await db.member.create({ data: { organizationId: defaultId, userId: editor.user.id, role: "editor" } });
  const editorToken = await createApiToken(auth, { userId: editor.user.id, workspaceId: defaultId }, "matrix");

  // The owner of another workspace, signed in by session.
  const outsider = await auth.api.signUpEmail({ body: { email: "outsider@matrix.test", password, name: "outsider" }, returnHeaders: true });
  const otherId = (await db.workspace.create({ data: { slug: "matrix-other", name: "other" } })).id;
  await db.member.create({ data: { organizationId: otherId, userId: outsider.response.user.id, role: "owner" } });
  await setOpenSignUp(db, false);

  const ownerUser = await db.user.findUniqueOrThrow({ where: { email: owner.email } });
  const revoked = await createApiToken(auth, { userId: ownerUser.id, workspaceId: defaultId }, "revoked");
  await db.apikey.delete({ where: { id: revoked.id } });

  ids.default = await seed(defaultId);
  ids.other = await seed(otherId);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  callers.push(
    { name: "anonymous", headers: {}, role: null, workspace: null },
    { name: "viewer", headers: viewerHeaders, role: "viewer", workspace: "default" },
    { name: "editor", headers: bearer(editorToken.key), role: "editor", workspace: "default" },
    { name: "owner", headers: bearer(owner.token), role: "owner", workspace: "default", instanceAdmin: true },
    { name: "member of another workspace", headers: sessionHeaders(outsider.headers.get("set-cookie")), role: "owner", workspace: "other" },
    { name: "revoked token", headers: bearer(revoked.key), role: null, workspace: null },
  );
});
afterAll(() => db.$disconnect());

/**
 * The status a caller should get from a route: 401 without a valid identity, 403 for a weaker role or (on an
 * instance-admin route) for anyone but the admin, an owner of another workspace included; else the row's.
 */
function expectedStatus(key: RouteKey, caller: Caller): number {
  const contract: RouteContract = API_CONTRACTS[key];
  if (contract.role === "public") return MATRIX[key].allowed;
  if (!caller.role) return 401;
  if (contract.instanceAdmin && !caller.instanceAdmin) return 403;
  return roleAllows(caller.role, contract.role) ? MATRIX[key].allowed : 403;
}

describe("authorization matrix (every /api/v1 route x every kind of caller)", () => {
  it("has a row for every route in the contract list, and no row without a route", () => {
    expect(Object.keys(MATRIX).sort()).toEqual(Object.keys(API_CONTRACTS).sort());
  });

  it("answers each caller with the status the route's role implies; another workspace's ids are 404", async () => {
    const wrong: string[] = [];
    for (const key of Object.keys(API_CONTRACTS) as RouteKey[]) {
      const row = MATRIX[key];
      const { method } = API_CONTRACTS[key];
      for (const caller of callers) {
        // Each caller asks for the ids of the workspace that is not theirs.
        const url = row.url(caller.workspace === "other" ? ids.default : ids.other);
        const headers: Record<string, string> = { ...caller.headers };
        if (row.body !== undefined) headers["content-type"] = "application/json";
        const res = await fetch(`${web}${url}`, { method, headers, body: row.body === undefined ? undefined : JSON.stringify(row.body) });
        await res.body?.cancel();
        const want = expectedStatus(key, caller);
        if (res.status !== want) wrong.push(`${key} as ${caller.name}: ${res.status}, expected ${want}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("lists only the caller's own workspace", async () => {
    const outsider = callers.find((c) => c.workspace === "other")!;
    const theirs = await (await fetch(`${web}/api/v1/runs`, { headers: outsider.headers })).text();
    const ours = await (await fetch(`${web}/api/v1/runs`, { headers: { authorization: `Bearer ${owner.token}` } })).text();
    expect(theirs).toContain(ids.other.run);
    expect(theirs).not.toContain(ids.default.run);
    expect(ours).toContain(ids.default.run);
    expect(ours).not.toContain(ids.other.run);
  });

  it("credentials by role: a member who is not an owner may not name a credential closed to editors (403); an owner opens it", async () => {
    const post = (caller: Caller, name: string) =>
      fetch(`${web}/api/v1/targets`, {
        method: "POST",
        headers: { ...caller.headers, "content-type": "application/json" },
        body: JSON.stringify({ name, kind: "kubernetes", spec: { credential: "matrix", image: "registry.invalid/app:1" } }),
      });
    const editor = callers.find((c) => c.name === "editor")!;
    const ownerCaller = callers.find((c) => c.name === "owner")!;
    const refused = await post(editor, "matrix-editor-target");
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/credential "matrix" is not open to editors/);
    expect((await post(ownerCaller, "matrix-owner-target")).status).toBe(201);
    const opened = await fetch(`${web}/api/v1/credentials/${ids.default.credential}`, {
      method: "PUT",
      headers: { ...ownerCaller.headers, "content-type": "application/json" },
      body: JSON.stringify({ editorsMayDeploy: true }),
    });
    expect(opened.status).toBe(200);
    expect((await post(editor, "matrix-editor-target")).status).toBe(201);
  });

  it("records when a token was last used", async () => {
    const row = await db.apikey.findFirstOrThrow({ where: { name: "matrix" } });
    expect(row.lastRequest).toBeInstanceOf(Date);
    expect(row.key).not.toContain("obk_");
  });
});
