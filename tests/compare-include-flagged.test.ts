// `includeFlagged` through the comparison API's input layer (the query parser and schema the route handlers and
// the compare page share, then the comparison): a flagged run is left out of the verdicts and named, unless the
// query says includeFlagged=1; a value that is not a yes or no is refused naming the parameter.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ZodError } from "zod";
import { comparisonInputSchema } from "@opsbench/api";
import { addRunFlags } from "@opsbench/db";
import { selectionFromQuery, selectionToQuery } from "../apps/web/features/compare/selection";
import { openTestStack, runOpsbench } from "./helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
const ids: string[] = [];

async function importRun(name: string, slow: number) {
  const lines: string[] = [];
  for (let i = 0; i < 200; i++)
    lines.push(
      JSON.stringify({
        type: "Point",
        metric: "http_req_duration",
        data: {
          time: new Date(Date.UTC(2026, 10, 25, 5, 0, 0) + i * 50).toISOString(),
          value: 10 + slow + (i % 7),
          tags: { status: "200" },
        },
      }),
    );
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, `${lines.join("\n")}\n`);
  const r = await runOpsbench("import", "k6", file, "--name", name, "--json");
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id as string;
}

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-include-flagged-"));
  for (const [name, slow] of [
    ["if-a1", 0],
    ["if-a2", 1],
    ["if-b1", 5],
    ["if-b2", 6],
    ["if-b3", 7],
  ] as const)
    ids.push(await importRun(name, slow));
  await addRunFlags(stack.db, ids[4]!, [{ code: "partial", message: "partial results" }]);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await stack?.close();
});

const query = (extra: string) => new URLSearchParams(`g=A:${ids[0]},${ids[1]}&g=B:${ids[2]},${ids[3]},${ids[4]}${extra}`);
/** As loadCompareData does (apps/web/features/compare/load-compare-data.ts, whose "@/" imports this project cannot load). */
const load = (q: URLSearchParams) => {
  const raw = selectionFromQuery(q);
  const input = comparisonInputSchema(raw).parse(raw);
  if ("studyId" in input) throw new Error("groups expected");
  return stack.scope.compare(input.groups, input.includeFlagged ? { includeFlagged: true } : {});
};

describe("includeFlagged in a comparison's query", () => {
  it("leaves the flagged run out of the verdicts by default, and names it", async () => {
    const data = await load(query(""));
    expect(data.verdictExclusions).toEqual({ includeFlagged: false, excluded: [{ group: "B", runId: ids[4], flags: ["partial"] }] });
    expect(data.verdicts.find((v) => v.metric === "p95")!.samples).toEqual([2, 2]);
  });

  it("judges it too with includeFlagged=1, and keeps the parameter in the page's links", async () => {
    const data = await load(query("&includeFlagged=1"));
    expect(data.verdictExclusions).toEqual({ includeFlagged: true, excluded: [] });
    expect(data.verdicts.find((v) => v.metric === "p95")!.samples).toEqual([2, 3]);
    const raw = selectionFromQuery(query("&includeFlagged=1"));
    expect(selectionToQuery(comparisonInputSchema(raw).parse(raw))).toContain("includeFlagged=1");
  });

  it("refuses another value, naming includeFlagged", () => {
    const raw = selectionFromQuery(query("&includeFlagged=maybe"));
    const parsed = comparisonInputSchema(raw).safeParse(raw);
    expect(parsed.success).toBe(false);
    expect((parsed.error as ZodError).issues[0]).toMatchObject({
      path: ["includeFlagged"],
      message: "includeFlagged: expected true or false",
    });
  });
});
