// Security review, finding 8: load made other ways than a run of a saved target skipped admission. With the day's
// run limit used up, an external run with 1,000 generators (ceiling 4) and a 720 h ingest token answered 201, and
// so did a k6 import; an external run could not be aborted or deleted while its generators were sending (abort
// answered `"aborted": false`, delete 409). External runs and imports now go through the admission normal runs do
// (apps/web/lib/server/run-admission.ts), the ingest token works no longer than the run's planned duration plus a
// margin, and an external run is aborted (its token refused from then on) and deleted whenever asked.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULT_INSTANCE_CEILINGS, k6ImportAggregator, toK6ImportUpload } from "@opsbench/core";
import type { Auth, Db } from "@opsbench/db";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { engineBuildInfo } from "../../engine/build.mjs";
import { startSignedInWeb } from "../test-identity";
import { type Caller, call, newMember, newWorkspace, openMembers } from "./limits-members";

const { web, owner } = await startSignedInWeb();
// The file's first account: the instance admin.
const admin = { headers: { authorization: `Bearer ${owner.token}` } };
let db: Db;
let auth: Auth;
const engines: ChildProcess[] = [];

beforeAll(async () => {
  ({ db, auth } = await openMembers());
});
afterEach(async () => {
  expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", DEFAULT_INSTANCE_CEILINGS)).status).toBe(200);
});
afterAll(async () => {
  for (const e of engines) e.kill("SIGKILL");
  await db.$disconnect();
});

const workspaceRows = async (workspaceId: string) => ({
  runs: await db.run.count({ where: { workspaceId } }),
  tokens: await db.runIngestToken.count({ where: { run: { workspaceId } } }),
});

/** The aggregate `opsbench import k6` uploads: three requests of one k6 JSON file. */
function k6Upload(name: string) {
  const k6 = k6ImportAggregator("json");
  for (const [i, ms] of [0, 400, 1300].entries())
    k6.line(
      JSON.stringify({
        metric: "http_req_duration",
        type: "Point",
        data: { time: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString(), value: 10 + i, tags: { name: "home", status: "200" } },
      }),
      i + 1,
    );
  return toK6ImportUpload(name, { path: "k6.json", format: "json", gzip: false, bytes: 300 }, k6.finish());
}

describe("external runs and imports are admitted like runs", () => {
  it("an external run over the ceilings (1,000 generators, a 720 h ingest token) is refused naming each; nothing is created", async () => {
    const editor = await newMember(db, auth, "gens@admission.test", await newWorkspace(db, "gens"), "editor");
    const res = await call(web, editor, "POST", "/api/v1/runs/external", { generators: 1000, validHours: 720 });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain(
      `asks for 1000 load generators; the workspace's limit maxGenerators is ${DEFAULT_INSTANCE_CEILINGS.maxGenerators}`,
    );
    expect(res.body.error.message).toContain("validHours: 720 h is longer than an ingest token may work here (2 h");
    expect(res.body.error.message).toContain(`maxDurationSeconds is ${DEFAULT_INSTANCE_CEILINGS.maxDurationSeconds}`);
    expect(res.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["generators", "validHours"]);
    expect(await workspaceRows(editor.workspaceId)).toEqual({ runs: 0, tokens: 0 });

    // Within them it is made, and its token, asked for no time, works the run's planned duration plus the margin.
    const before = Date.now();
    const ok = await call(web, editor, "POST", "/api/v1/runs/external", { generators: 4 });
    expect(ok.status).toBe(201);
    const expires = Date.parse(ok.body.expiresAt) - before;
    expect(expires).toBeGreaterThan((2 * 3600 - 60) * 1000);
    expect(expires).toBeLessThanOrEqual(2 * 3600 * 1000 + 5000);
    // A lower ceiling binds the same way, named as the instance's.
    expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxGenerators: 2 })).status).toBe(200);
    const lowered = await call(web, editor, "POST", "/api/v1/runs/external", { generators: 3 });
    expect(lowered.status).toBe(422);
    expect(lowered.body.error.message).toContain("the instance's ceiling maxGenerators is 2");
  });

  it("with the day's run limit used up, an external run and a k6 import are refused (429 naming the limit); nothing is created", async () => {
    const daily = await newMember(db, auth, "daily@admission.test", await newWorkspace(db, "daily-external"), "editor");
    await db.run.create({ data: { workspaceId: daily.workspaceId, status: "SUCCEEDED", name: "earlier today" } });
    expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxRunsPerDay: 1 })).status).toBe(200);
    const expected = "1 runs were created in the last 24 hours and this adds 1; the instance's ceiling maxRunsPerDay is 1";

    const external = await call(web, daily, "POST", "/api/v1/runs/external", { generators: 1 });
    expect(external.status).toBe(429);
    expect(external.body.error.message).toBe(expected);
    const imported = await call(web, daily, "POST", "/api/v1/imports/k6", k6Upload("over the day's runs"));
    expect(imported.status).toBe(429);
    expect(imported.body.error.message).toBe(expected);
    expect(await workspaceRows(daily.workspaceId)).toEqual({ runs: 1, tokens: 0 });

    // Imports count toward the day like any run: with room for one more, one import uses it up.
    expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxRunsPerDay: 2 })).status).toBe(200);
    expect((await call(web, daily, "POST", "/api/v1/imports/k6", k6Upload("the day's last"))).status).toBe(201);
    expect((await call(web, daily, "POST", "/api/v1/runs/external", { generators: 1 })).status).toBe(429);
  });

  it("an external run counts as work under way: maxConcurrentRuns refuses the next one", async () => {
    const busy = await newMember(db, auth, "busy@admission.test", await newWorkspace(db, "busy-external"), "editor");
    expect((await call(web, admin, "PUT", "/api/v1/instance/ceilings", { maxConcurrentRuns: 1 })).status).toBe(200);
    expect((await call(web, busy, "POST", "/api/v1/runs/external", {})).status).toBe(201);
    const second = await call(web, busy, "POST", "/api/v1/runs/external", {});
    expect(second.status).toBe(429);
    expect(second.body.error.message).toBe("1 runs and studies are queued or under way; the instance's ceiling maxConcurrentRuns is 1");
    expect(await workspaceRows(busy.workspaceId)).toEqual({ runs: 1, tokens: 1 });
  });
});

describe("an external run is stopped and deleted whenever asked", () => {
  let editor: Caller;
  beforeAll(async () => {
    editor = await newMember(db, auth, "stop@admission.test", await newWorkspace(db, "stop-external"), "editor");
  });

  it("aborted while its generator is still sending: ABORTED at once, its token refused; then deleted with its rows", async () => {
    const created = await call(web, editor, "POST", "/api/v1/runs/external", { generators: 1 });
    expect(created.status).toBe(201);
    const { id, token, ingestUrl } = created.body as { id: string; token: string; ingestUrl: string };

    // The generator: opsbench-engine with a 2-minute test, posting its seconds to the ingest URL as printed.
    const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-external-abort-"));
    writeFileSync(
      path.join(dir, "script.js"),
      `import { sleep } from "k6";\nexport const options = { vus: 1, duration: "120s" };\nexport default function () { sleep(0.2); }\n`,
    );
    const engine = spawn(
      (engineBuildInfo() as { binary: string }).binary,
      ["run", "--quiet", "--address", "", "--out", `opsbench=${ingestUrl}`, "script.js"],
      { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir, OPSBENCH_INGEST_TOKEN: token }, stdio: "ignore" },
    );
    engines.push(engine);
    const until = Date.now() + 30_000;
    while ((await db.run.findUniqueOrThrow({ where: { id } })).status !== "RUNNING") {
      if (Date.now() > until) throw new Error("the generator's seconds never reached the run");
      await new Promise((r) => setTimeout(r, 200));
    }
    // The generator's first seconds arrive (a busy machine may take a few seconds to flush them).
    const fed = Date.now() + 20_000;
    while ((await db.loadSecond.count({ where: { runId: id } })) === 0 && Date.now() < fed) await new Promise((r) => setTimeout(r, 250));
    expect(await db.loadSecond.count({ where: { runId: id } })).toBeGreaterThan(0);
    expect(engine.exitCode).toBeNull();

    const aborted = await call(web, editor, "POST", `/api/v1/runs/${id}/abort`, {});
    expect(aborted.status).toBe(200);
    expect(aborted.body).toEqual({ id, aborted: true, status: "ABORTED" });
    const ingest = await fetch(ingestUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
      body: `${JSON.stringify({ t: "load", s: Math.floor(Date.now() / 1000), vus: 1, vusMax: 1, sent: 0, received: 0, iterations: 1, dropped: 0 })}\n`,
    });
    expect(ingest.status).toBe(401);
    // What the generator still sends changes nothing.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await db.run.findUniqueOrThrow({ where: { id } })).status).toBe("ABORTED");

    const deleted = await call(web, editor, "DELETE", `/api/v1/runs/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id, deleted: true });
    expect(await db.run.count({ where: { id } })).toBe(0);
    expect(await db.runIngestToken.count({ where: { runId: id } })).toBe(0);
    expect(await db.loadSecond.count({ where: { runId: id } })).toBe(0);
    expect(await db.runSegment.count({ where: { runId: id } })).toBe(0);
    engine.kill("SIGKILL");
  }, 90_000);

  it("a run no generator ever fed is deleted at once", async () => {
    const created = await call(web, editor, "POST", "/api/v1/runs/external", {});
    const deleted = await call(web, editor, "DELETE", `/api/v1/runs/${created.body.id}`);
    expect(deleted.status).toBe(200);
    expect(await workspaceRows(editor.workspaceId)).toEqual({ runs: 0, tokens: 0 });
  });
});
