// k6 run from anywhere: a k6 started by hand (the opsbench build, its output in HTTP mode) feeds a run made for
// it through POST /api/v1/runs/<id>/ingest; a wrong, expired or other run's token is refused (401) and writes nothing.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createDb, createExternalRun, defaultWorkspaceId, type Db } from "@opsbench/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { engineBuildInfo } from "../../../engine/build.mjs";
import { testDatabaseUrl, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-ingest-"));
let db: Db;
let target: http.Server;
let workspaceId: string;

const ingest = (runId: string, token: string, body: string) =>
  fetch(`${web}/api/v1/runs/${runId}/ingest`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
    body,
  });
const rowsOf = async (runId: string) =>
  (await db.resultSecond.count({ where: { runId } })) + (await db.loadSecond.count({ where: { runId } }));

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 2 });
  workspaceId = await defaultWorkspaceId(db);
  target = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise((r) => target.close(r));
  await db.$disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe("POST /api/v1/runs/{id}/ingest", () => {
  it("a k6 started by hand with --out opsbench=<ingest URL> feeds the run: k6's own request count, then final", async () => {
    const run = await createExternalRun(db, workspaceId, { name: "by hand" });
    const script = path.join(dir, "script.js");
    writeFileSync(
      script,
      `import http from "k6/http";
export const options = { vus: 2, duration: "3s" };
export default function () { http.get(__ENV.TARGET); }`,
    );
    const summaryFile = path.join(dir, "summary.json");
    const k6 = spawn(
      (engineBuildInfo() as { binary: string }).binary,
      ["run", "--quiet", "--address", "", "--out", `opsbench=${web}/api/v1/runs/${run.id}/ingest`, "--summary-export", summaryFile, script],
      {
        env: {
          ...process.env,
          HOME: dir,
          K6_OPSBENCH_TOKEN: run.token,
          TARGET: `http://127.0.0.1:${(target.address() as AddressInfo).port}/`,
          K6_NO_USAGE_REPORT: "true",
        },
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    expect(await new Promise((resolve) => k6.on("exit", resolve))).toBe(0);
    const k6Count = (JSON.parse(readFileSync(summaryFile, "utf8")) as { metrics: { http_reqs: { count: number } } }).metrics.http_reqs
      .count;
    const row = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.status).toBe("SUCCEEDED");
    expect((row.summary as { requests: number }).requests).toBe(k6Count);
    expect(k6Count).toBeGreaterThan(0);
  });

  it("refuses a wrong, an expired and another run's token with 401, and writes nothing", async () => {
    const run = await createExternalRun(db, workspaceId, { name: "refused" });
    const other = await createExternalRun(db, workspaceId, { name: "other" });
    const line = `${JSON.stringify({ t: "load", s: Math.floor(Date.now() / 1000), vus: 1, vusMax: 1, sent: 1, received: 1, iterations: 1, dropped: 0 })}\n`;
    for (const token of [`${run.token}x`, other.token, ""]) {
      const res = await ingest(run.id, token, line);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    await db.runIngestToken.updateMany({ where: { runId: run.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await ingest(run.id, run.token, line)).status).toBe(401);
    expect(await rowsOf(run.id)).toBe(0);
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("QUEUED");
    // The right token works, and a bad line refuses the whole batch (422), leaving what was stored.
    expect((await ingest(other.id, other.token, line)).status).toBe(200);
    expect((await ingest(other.id, other.token, `${line}not json\n`)).status).toBe(422);
    expect(await rowsOf(other.id)).toBe(1);
    // Only a hash is stored.
    const stored = await db.runIngestToken.findFirstOrThrow({ where: { runId: other.id } });
    expect(stored.tokenHash).not.toContain(other.token);
    expect(stored.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });
});
