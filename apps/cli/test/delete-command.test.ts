// `opsbench runs delete`, `study delete`, `targets delete`, `workloads delete` against the file's database:
// exit 0 when deleted, 1 when refused (still used), 2 for an unknown one. No worker: the runs are never queued.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { studyInput } from "@opsbench/core";
import { createDb, defaultWorkspaceId, workspaceScope, type Db, type WorkspaceScope } from "@opsbench/db";
import { runOpsbench, shortRamp, taewaTarget, testDatabaseUrl } from "../../../tests/helpers";

let db: Db;
let scope: WorkspaceScope;
beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 2 });
  scope = workspaceScope(db, await defaultWorkspaceId(db));
  await scope.targets.put(taewaTarget("cli-del"));
  await scope.workloads.put(shortRamp("cli-del-load"));
});
afterAll(() => db.$disconnect());

describe("opsbench ... delete", () => {
  it("deletes runs and studies (queued ones aborted first), refuses a target runs use, then deletes it", async () => {
    const run = await scope.runs.create({ targetName: "cli-del", workloadName: "cli-del-load" });
    const { study, runs } = await scope.studies.create(
      studyInput.parse({ name: "cli-del-study", targets: ["cli-del"], workloads: ["cli-del-load"], repetitions: 2 }),
    );

    const refused = await runOpsbench("targets", "delete", "cli-del");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('target "cli-del" is used by 3 run(s)');

    const r = await runOpsbench("runs", "delete", run.id);
    expect(r.code, r.stderr).toBe(0);
    expect(await db.run.count({ where: { id: run.id } })).toBe(0);
    const s = await runOpsbench("study", "delete", study.id);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stderr).toContain("with its 2 run(s)");
    expect(await db.run.count({ where: { id: { in: runs.map((x) => x.id) } } })).toBe(0);

    const w = await runOpsbench("workloads", "delete", "cli-del-load");
    expect(w.code, w.stderr).toBe(0);
    expect(await db.workload.count({ where: { name: "cli-del-load" } })).toBe(0);
    const unknown = await runOpsbench("targets", "delete", "cli-nope");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('target "cli-nope" not found');
  }, 300_000);
});
