import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  emptyHistogram,
  infraPointDetailSchema,
  publicRunSummarySchema,
  readStoredJson,
  recordValue,
  toPart,
  runSummarySchema,
  STORED_JSON_SCHEMAS,
  studyCellsSchema,
  summarize,
  targetSnapshotSchema,
  toStoredJson,
  type ResultCell,
} from "../src/index";

const cell = (second: number, values: number[], cls = "2xx"): ResultCell => {
  const h = emptyHistogram();
  for (const v of values) recordValue(h, v);
  return { ...toPart(h), ts: new Date(second * 1000), name: "GET /", class: cls, failures: cls === "2xx" ? 0 : values.length };
};

describe("stored JSON schemas", () => {
  it("has a schema for every Json column of the Prisma schema", () => {
    const prisma = readFileSync(new URL("../../../prisma/schema.prisma", import.meta.url), "utf8");
    const columns: string[] = [];
    let model = "";
    for (const line of prisma.split("\n")) {
      const m = /^model (\w+) \{/.exec(line);
      if (m) model = m[1]!;
      const f = /^\s+(\w+)\s+Json\??(\s|$)/.exec(line);
      if (f) columns.push(`${model}.${f[1]}`);
    }
    expect(columns.length).toBeGreaterThanOrEqual(14);
    expect(Object.keys(STORED_JSON_SCHEMAS).sort()).toEqual(columns.sort());
  });

  it("reads back a summary as analysis wrote it, and rejects one missing its latencies", () => {
    const summary = {
      ...summarize([cell(0, [10, 20, 30]), cell(1, [40], "5xx")], 2),
      thresholds: [{ metric: "m", expression: "p(95)<1", ok: true }],
    };
    const stored = JSON.parse(JSON.stringify(toStoredJson(runSummarySchema, summary)));
    expect(readStoredJson(runSummarySchema, stored)).toEqual(summary);
    const { latencyMs: _, ...broken } = summary;
    expect(readStoredJson(runSummarySchema, broken)).toBeNull();
    expect(() => toStoredJson(runSummarySchema, { ...summary, rps: "fast" } as never)).toThrow();
  });

  it("shows the public only the measured figures of a summary", () => {
    const summary = summarize([cell(0, [10]), cell(1, [12])], 2);
    const stored = {
      ...summary,
      byClass: { ...summary.byClass, "<script>": 1 },
      appChecks: [{ name: "secret", ok: true, message: "stock fine" }],
      thresholds: [{ metric: "http_req_duration", expression: "p(95)<200", ok: true }],
      somethingNew: "kept private",
    };
    const shown = publicRunSummarySchema.parse(stored);
    expect(Object.keys(shown)).not.toContain("appChecks");
    expect(Object.keys(shown)).not.toContain("thresholds");
    expect(Object.keys(shown)).not.toContain("somethingNew");
    expect(shown.byClass).toEqual({ "2xx": 2 });
    expect(shown.latencyMs).toEqual(summary.latencyMs);
  });

  it("reads an infra point's detail leniently, field by field", () => {
    const d = infraPointDetailSchema.parse({
      kind: "local-service",
      desired: "three",
      perReplicaCpu: [12.5, "x", null],
      scalingEvents: [{ from: 1, to: 2, reason: "cpu" }, { from: "a" }, "junk"],
      pids: [1, 2],
    });
    expect(d.kind).toBe("local-service");
    expect(d.desired).toBeUndefined();
    expect(d.perReplicaCpu).toEqual([12.5, null, null]);
    expect(d.scalingEvents).toEqual([{ from: 1, to: 2, reason: "cpu" }]);
  });

  it("reads a run's target snapshot and a study's cells, or nothing", () => {
    expect(readStoredJson(targetSnapshotSchema, { kind: "local-service", spec: { app: "echo/go" } })).toEqual({
      kind: "local-service",
      spec: { app: "echo/go" },
    });
    expect(readStoredJson(targetSnapshotSchema, {})).toBeNull();
    expect(readStoredJson(studyCellsSchema, [{ targetId: "t", target: "a", workloadId: "w", workload: "b" }])).toHaveLength(1);
    expect(readStoredJson(studyCellsSchema, [{ targetId: 1 }])).toBeNull();
  });
});
