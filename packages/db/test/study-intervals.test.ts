// Study intervals stay in their quantity's domain (issue 35, finding 2: with 2 repetitions req/s [-29.5, 155.9],
// goodput up to 100.35%). Runs written here as k6 files (every request known) and imported by the real
// `opsbench import k6`, put in a study of two cells: 2 repetitions far apart, and 3 far apart with a run of 0
// failures and one of 100% goodput. The plain t-interval of those runs crosses 0 and 100%, worked out here; the
// data the study page renders, the tables, the export rows (the CSV's columns) and `opsbench study show` must not.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { STUDY_CELL_FIGURES, STUDY_TABLE_IDS, STUDY_TABLE_METRICS, studyTableRows } from "@opsbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, runOpsbench, taewaTarget } from "../../../tests/helpers";
import { importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";

let stack: Awaited<ReturnType<typeof openTestStack>>;
let dir: string;
let studyId: string;
const T0 = Date.UTC(2026, 10, 30, 6, 0, 0);

/** 40 s at `rate` req/s, steady latency (no warm-up to cut); `failed` of them (spread evenly) answered 503. */
function steady(rate: number, failed: number): WrittenRequest[] {
  const n = 40 * rate;
  const every = failed > 0 ? n / failed : Number.POSITIVE_INFINITY;
  return Array.from({ length: n }, (_, i) => ({
    atMs: Math.floor((i * 1000) / rate),
    ms: 20 + ((i * 7) % 10) * rate,
    ok: !(failed > 0 && i % every < 1 && Math.floor(i / every) < failed),
  }));
}

/** Cell A, 2 repetitions: 2 vs 20 req/s, goodput 100% vs 75%. Cell B, 3: 2, 20, 40 req/s; 0, 200 and 2 failures. */
const FILES: Record<string, { cell: "a" | "b"; repetition: number; requests: WrittenRequest[] }> = {
  a1: { cell: "a", repetition: 1, requests: steady(2, 0) },
  a2: { cell: "a", repetition: 2, requests: steady(20, 200) },
  b1: { cell: "b", repetition: 1, requests: steady(2, 0) },
  b2: { cell: "b", repetition: 2, requests: steady(20, 200) },
  b3: { cell: "b", repetition: 3, requests: steady(40, 2) },
};

const ofFile = (name: string) => {
  const r = FILES[name]!.requests;
  const failed = r.filter((x) => !x.ok).length;
  return { failed, goodput: (100 * (r.length - failed)) / r.length };
};

/** The plain t-interval (the old rule), worked out here: t(0.975, 1) = tan(0.475 pi), t(0.975, 2) in closed form. */
function plainT(xs: number[]) {
  const n = xs.length;
  const m = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1));
  const t = n === 2 ? Math.tan(0.475 * Math.PI) : (2 * 0.975 - 1) / Math.sqrt(2 * 0.975 * 0.025);
  return { low: m - (t * sd) / Math.sqrt(n), high: m + (t * sd) / Math.sqrt(n) };
}

beforeAll(async () => {
  stack = await openTestStack({ worker: false });
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-intervals-"));
  const study = await stack.db.study.create({
    data: { workspaceId: stack.scope.workspaceId, name: "intervals", status: "SUCCEEDED", repetitions: 3 },
  });
  studyId = study.id;
  const targets: Record<string, string> = {};
  for (const cell of ["a", "b"]) {
    await stack.scope.targets.put(taewaTarget(`interval-${cell}`));
    targets[cell] = (await stack.scope.targets.byName(`interval-${cell}`)).id;
  }
  for (const [name, f] of Object.entries(FILES)) {
    const id = await importK6Requests(dir, `interval-${name}`, f.requests, { t0: T0 });
    await stack.db.run.update({ where: { id }, data: { studyId, targetId: targets[f.cell]!, repetition: f.repetition } });
  }
}, 180_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await stack?.close();
});

/** A figure's domain's edges: shares are in [0, 100] %, every other figure here is >= 0. */
const edges = (domain: string) => ({ low: 0, high: domain === "share" ? 100 : Number.POSITIVE_INFINITY });

describe("study intervals in their domain", () => {
  it("the data was built so the plain t-interval crosses 0 and 100%", () => {
    const a = ["a1", "a2"].map(ofFile);
    const b = ["b1", "b2", "b3"].map(ofFile);
    expect(plainT(a.map((x) => x.goodput)).high).toBeGreaterThan(100);
    expect(plainT(a.map((x) => x.failed)).low).toBeLessThan(0);
    expect(plainT(b.map((x) => x.goodput)).high).toBeGreaterThan(100);
    expect(plainT(b.map((x) => x.failed)).low).toBeLessThan(0);
  });

  it("the study page's data: 2 runs show their range, 3 an interval inside the domain", async () => {
    const view = await stack.scope.studies.view(studyId);
    const [a, b] = ["interval-a", "interval-b"].map((name) => view.cells.find((c) => c.target.name === name)!);
    // Two runs: the runs' range, exactly the files' figures; no confidence interval.
    const aGoodput = ["a1", "a2"].map((n) => ofFile(n).goodput);
    expect(a!.stats.goodput).toMatchObject({ n: 2, ci95: null });
    expect(a!.stats.goodput.interval).toEqual({ kind: "min-max", level: null, low: Math.min(...aGoodput), high: Math.max(...aGoodput) });
    expect(a!.stats.failures.interval).toMatchObject({ kind: "min-max", low: 0, high: 200 });
    // Three runs with a run on the edge (0 failures, 100% goodput): the t-interval cut there.
    expect(b!.stats.failures.interval).toMatchObject({ kind: "t-clamped", low: 0 });
    expect(b!.stats.goodput.interval).toMatchObject({ kind: "t-clamped", high: 100 });
    expect(b!.stats.rps.interval!.kind).toBe("t-log");
    for (const cell of [a!, b!])
      for (const f of STUDY_CELL_FIGURES) {
        const i = cell.stats[f.key].interval!;
        const e = edges(f.domain);
        expect(i.low, `${cell.target.name} ${f.key} low`).toBeGreaterThanOrEqual(e.low);
        expect(i.high, `${cell.target.name} ${f.key} high`).toBeLessThanOrEqual(e.high);
        expect(i.low).toBeLessThanOrEqual(i.high);
      }
  });

  it("the tables and their export rows (the CSV's columns) carry the same ends, inside the domain, and name the kind", async () => {
    const tables = await stack.scope.studies.tables(studyId);
    let checked = 0;
    for (const id of STUDY_TABLE_IDS) {
      const { columns, rows } = studyTableRows(id, tables.cells);
      for (const row of rows)
        columns.forEach((col, k) => {
          const m = /^(?:.*:)?(\w+)_(low|high)$/.exec(col);
          if (!m || row[k] === null) return;
          const e = edges(STUDY_TABLE_METRICS[m[1]!]!.domain);
          const v = Number(row[k]);
          expect(v, `${id} ${col}`).toBeGreaterThanOrEqual(e.low);
          expect(v, `${id} ${col}`).toBeLessThanOrEqual(e.high);
          checked++;
        });
    }
    expect(checked).toBeGreaterThan(20);
    const counts = studyTableRows("request-counts", tables.cells);
    const col = (name: string) => counts.columns.indexOf(name);
    const aRow = counts.rows.find((r) => r[0] === "interval-a")!;
    expect(aRow[col("goodput_interval")]).toBe("min-max");
    expect(aRow[col("goodput_high")]).toBe(100);
    const bRow = counts.rows.find((r) => r[0] === "interval-b")!;
    expect(bRow[col("failed_interval")]).toBe("t-clamped");
    expect(bRow[col("failed_low")]).toBe(0);
  });

  it("`opsbench study show` prints the range for 2 runs, the interval for 3, never a bound outside the domain", async () => {
    const show = await runOpsbench("study", "show", studyId);
    expect(show.code, show.stderr).toBe(0);
    const lines = show.stdout.split("\n");
    const block = (name: string) => {
      const at = lines.findIndex((l) => l.includes(`${name} x `));
      return lines.slice(at + 1, at + 1 + STUDY_CELL_FIGURES.length);
    };
    expect(block("interval-a").find((l) => l.trim().startsWith("goodput"))).toMatch(
      /\(min-max 75\.00 to 100\.00; n = 2: not informative\)$/,
    );
    expect(block("interval-b").find((l) => l.trim().startsWith("failures"))).toMatch(/\(95% CI 0 to \d+, t-clamped\)$/);
    for (const cell of ["interval-a", "interval-b"])
      for (const [k, f] of STUDY_CELL_FIGURES.entries()) {
        const m = /\((?:95% CI|min-max) (-?[\d.]+) to (-?[\d.]+)/.exec(block(cell)[k]!);
        expect(m, `${cell} ${f.key}: ${block(cell)[k]}`).not.toBeNull();
        const e = edges(f.domain);
        expect(Number(m![1]), `${cell} ${f.key}`).toBeGreaterThanOrEqual(e.low);
        expect(Number(m![2]), `${cell} ${f.key}`).toBeLessThanOrEqual(e.high);
      }
  });
});
