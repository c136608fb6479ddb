// A run's provenance through the runs scope (issue 36): stored on create and on external create, set on an existing
// run, and the list's filters by branch, commit prefix and label; always within the workspace. Which runs each
// filter finds is read off the provenance each run was made with.
import { NotFoundError, workspaceScope } from "@opsbench/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, shortRamp, taewaTarget } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
const SHA_A = "3f786850e387550fdab836ed7e6dc881de23001b";
const SHA_B = "3f786851aaaa550fdab836ed7e6dc881de230000"; // shares 3f78685 with SHA_A, not 3f786850
const none = { commit: null, branch: null, pullRequest: null, buildUrl: null, labels: {}, series: null };
const ids: Record<string, string> = {};

const externalArgs = { generators: 1, baseUrl: "http://127.0.0.1:1", image: "img", scriptConfigmap: "cm" };

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  await stack.scope.targets.put(taewaTarget("prov-taewa", { replicas: 1 }));
  await stack.scope.workloads.put(shortRamp("prov-short", { vus: 1, holdSeconds: 1 }));
  const make = (provenance?: Parameters<typeof stack.scope.runs.create>[0]["provenance"]) =>
    stack.scope.runs.create({ targetName: "prov-taewa", workloadName: "prov-short", provenance });
  ids.main = (
    await make({ commit: SHA_A.toUpperCase(), branch: "main", buildUrl: "https://ci.example.com/1", labels: { env: "staging" } })
  ).id;
  ids.pr = (await make({ commit: SHA_B, branch: "feature/x", pullRequest: 12, labels: { env: "prod", suite: "smoke" } })).id;
  ids.bare = (await make()).id;
  ids.external = (await stack.scope.runs.createExternal({ ...externalArgs, provenance: { branch: "main", labels: { env: "prod" } } })).id;
});
afterAll(() => stack?.close());

const listed = async (filter: Parameters<typeof stack.scope.runs.list>[1]) =>
  (await stack.scope.runs.list(50, filter)).map((r) => r.id).sort();
const sorted = (...keys: string[]) => keys.map((k) => ids[k]!).sort();

describe("a run's provenance in the runs scope", () => {
  it("is stored on create and external create (the commit lower-case), and reads as nulls and {} when none was given", async () => {
    expect((await stack.scope.runs.view(ids.main!)).provenance).toEqual({
      commit: SHA_A,
      branch: "main",
      pullRequest: null,
      buildUrl: "https://ci.example.com/1",
      labels: { env: "staging" },
      series: null,
    });
    expect((await stack.scope.runs.view(ids.external!)).provenance).toEqual({ ...none, branch: "main", labels: { env: "prod" } });
    expect((await stack.scope.runs.view(ids.bare!)).provenance).toEqual(none);
    const row = (await stack.scope.runs.list(50)).find((r) => r.id === ids.pr);
    expect(row?.provenance).toEqual({
      commit: SHA_B,
      branch: "feature/x",
      pullRequest: 12,
      buildUrl: null,
      labels: { env: "prod", suite: "smoke" },
      series: null,
    });
  });

  it("filters the list by branch, by a commit prefix of 7+ digits in any case, by a label, and by all at once", async () => {
    expect(await listed({ branch: "main" })).toEqual(sorted("main", "external"));
    expect(await listed({ commit: SHA_A.slice(0, 8) })).toEqual(sorted("main"));
    expect(await listed({ commit: SHA_A.slice(0, 7).toUpperCase() })).toEqual(sorted("main", "pr"));
    expect(await listed({ commit: SHA_B })).toEqual(sorted("pr"));
    expect(await listed({ label: "env=prod" })).toEqual(sorted("pr", "external"));
    expect(await listed({ label: "suite=smoke", branch: "feature/x", commit: "3f78685" })).toEqual(sorted("pr"));
    expect(await listed({ label: "env=nowhere" })).toEqual([]);
    expect(await listed({})).toEqual(sorted("main", "pr", "bare", "external"));
    await expect(stack.scope.runs.list(50, { commit: "3f7868" })).rejects.toThrow(/7 to 64 hex digits/);
    await expect(stack.scope.runs.list(50, { label: "no equals" })).rejects.toThrow(/key=value/);
  });

  it("sets it on an existing run, replacing what it had; refuses a bad value before writing", async () => {
    const set = await stack.scope.runs.setProvenance(ids.bare!, { commit: "ABCDEF0", pullRequest: 3, labels: { team: "payments" } });
    expect(set).toEqual({ ...none, commit: "abcdef0", pullRequest: 3, labels: { team: "payments" } });
    expect((await stack.scope.runs.view(ids.bare!)).provenance).toEqual(set);
    expect(await listed({ label: "team=payments" })).toEqual(sorted("bare"));
    await expect(stack.scope.runs.setProvenance(ids.bare!, { commit: "nothex!" })).rejects.toThrow();
    expect((await stack.scope.runs.view(ids.bare!)).provenance).toEqual(set);
    expect(await stack.scope.runs.setProvenance(ids.bare!, {})).toEqual(none);
  });

  it("another workspace neither sees its runs in a filtered list nor sets their provenance (not found)", async () => {
    const other = await stack.db.workspace.create({ data: { slug: `prov-other-${Date.now()}`, name: "Other" } });
    const scope = workspaceScope(stack.db, other.id);
    expect(await scope.runs.list(50, { branch: "main" })).toEqual([]);
    expect(await scope.runs.list(50, { label: "env=prod" })).toEqual([]);
    await expect(scope.runs.setProvenance(ids.main!, { branch: "stolen" })).rejects.toBeInstanceOf(NotFoundError);
    expect((await stack.scope.runs.view(ids.main!)).provenance.branch).toBe("main");
  });
});
