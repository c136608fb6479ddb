// The Grafana dashboard (infra/grafana/opsbench-results.json) reads the series the results export writes
// (docs/exports.md): every metric a query or a variable names is one the exporter writes (no typo between the two),
// every label a selector names is one it sends, and each exported metric has a panel.
import { readFileSync } from "node:fs";
import path from "node:path";
import { EXPORT_LABELS, EXPORT_METRIC_NAMES } from "@opsbench/core";
import { describe, expect, it } from "vitest";

const file = path.resolve(import.meta.dirname, "../../../infra/grafana/opsbench-results.json");
const dashboard = JSON.parse(readFileSync(file, "utf8")) as {
  panels: { title: string; targets: { expr: string }[] }[];
  templating: { list: { name: string; type: string; definition?: string }[] };
};
const queries = [
  ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
  ...dashboard.templating.list.filter((v) => v.type === "query").map((v) => v.definition ?? ""),
];
const metricsIn = (q: string) => [...q.matchAll(/\b(opsbench_[a-z0-9_]+)/g)].map((m) => m[1]!);
// Label matchers (name=~"..." or name="...") inside selectors, and label_values(..., name)'s label.
const labelsIn = (q: string) => [
  ...[...q.matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)\s*"/g)].map((m) => m[1]!),
  ...[...q.matchAll(/label_values\([^)]*,\s*([a-z_]+)\)/g)].map((m) => m[1]!),
];

describe("the Grafana dashboard", () => {
  it("queries only metrics the exporter writes, and every one of them", () => {
    const used = new Set(queries.flatMap(metricsIn));
    expect(used.size).toBeGreaterThan(0);
    for (const name of used) expect(EXPORT_METRIC_NAMES, `the dashboard queries ${name}`).toContain(name);
    for (const name of EXPORT_METRIC_NAMES) expect([...used], `no panel shows ${name}`).toContain(name);
  });

  it("selects on labels the exporter sends, with a variable for target, workload and run", () => {
    const sent = new Set<string>([...EXPORT_LABELS, "unit", "__name__"]);
    for (const label of queries.flatMap(labelsIn)) expect([...sent], `the dashboard selects on ${label}`).toContain(label);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(expect.arrayContaining(["target", "workload", "run"]));
    for (const p of dashboard.panels) for (const t of p.targets) expect(t.expr, p.title).toContain('run=~"$run"');
  });
});
