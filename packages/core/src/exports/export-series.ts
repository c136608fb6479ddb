// What a run's results export sends (docs/exports.md): one series per metric below, a point per second of the run,
// labelled with the run's identity and provenance. The Prometheus remote-write and OTLP encoders (the worker's
// exports/) write exactly these names, and the Grafana dashboard (infra/grafana/) queries them: a unit test holds
// the dashboard to this list.
import { z } from "zod";

export const EXPORTER_KINDS = ["prometheus-remote-write", "otlp-http"] as const;
export type ExporterKind = (typeof EXPORTER_KINDS)[number];
export const EXPORTER_AUTH = ["none", "bearer", "basic"] as const;
export type ExporterAuth = (typeof EXPORTER_AUTH)[number];

export interface ExportMetric {
  name: string;
  help: string;
  /** OTLP's unit (UCUM); empty where Prometheus' OTLP translation would otherwise add a suffix to the name. */
  unit: string;
}

/** Every metric name the exporter writes, Prometheus-style (the same names go over OTLP). */
export const EXPORT_METRICS = {
  p50: { name: "opsbench_latency_p50_milliseconds", help: "Median request latency in the second (ms)", unit: "ms" },
  p95: { name: "opsbench_latency_p95_milliseconds", help: "95th percentile request latency in the second (ms)", unit: "ms" },
  p99: { name: "opsbench_latency_p99_milliseconds", help: "99th percentile request latency in the second (ms)", unit: "ms" },
  requests: { name: "opsbench_requests_per_second", help: "Requests answered in the second", unit: "" },
  failures: { name: "opsbench_failures_per_second", help: "Failed requests in the second (k6's http_req_failed)", unit: "" },
  vus: { name: "opsbench_vus", help: "Virtual users active in the second", unit: "" },
  replicas: { name: "opsbench_replicas", help: "The target's replicas (instances) the platform reported", unit: "" },
  cpu: { name: "opsbench_cpu_percent", help: "The target's CPU use the platform reported (percent)", unit: "" },
  cost: { name: "opsbench_run_cost", help: "What the run cost on its target's cost model, at the end of its load (label unit)", unit: "" },
} as const satisfies Record<string, ExportMetric>;
export type ExportMetricKey = keyof typeof EXPORT_METRICS;
export const EXPORT_METRIC_NAMES: readonly string[] = Object.values(EXPORT_METRICS).map((m) => m.name);

/** The labels every exported series carries (an empty one is left out: Prometheus treats both alike). */
export const EXPORT_LABELS = ["run", "study", "target", "workload", "commit"] as const;
export type ExportLabels = Partial<Record<(typeof EXPORT_LABELS)[number], string | null>>;

export interface ExportPoint {
  /** Unix milliseconds. */
  t: number;
  v: number;
}

export interface ExportSeries {
  metric: ExportMetricKey;
  /** The run's labels, and a metric's own (cost's `unit`). */
  labels: Record<string, string>;
  points: ExportPoint[];
}

/** The labels as sent: non-empty ones only. */
export function exportLabels(labels: ExportLabels): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of EXPORT_LABELS) {
    const v = labels[k];
    if (v) out[k] = v;
  }
  return out;
}

/** One run's per-second facts, as the database gives them (merged over request names and load generators). */
export interface RunExportFacts {
  labels: ExportLabels;
  seconds: { t: number; p50: number; p95: number; p99: number; requests: number; failures: number }[];
  load: { t: number; vus: number }[];
  infra: { t: number; replicas: number; cpuPercent: number | null }[];
  /** The run's cost (summary.cost), at the end of its load; null when it was not priced. */
  cost: { t: number; total: number; unit: string } | null;
}

/** The series to export, each point in time order (remote write wants them so); empty series are left out. */
export function runExportSeries(facts: RunExportFacts): ExportSeries[] {
  const labels = exportLabels(facts.labels);
  const byTime = <T extends { t: number }>(rows: readonly T[]) => [...rows].sort((a, b) => a.t - b.t);
  const seconds = byTime(facts.seconds);
  const infra = byTime(facts.infra);
  const series: ExportSeries[] = [
    ...(["p50", "p95", "p99", "requests", "failures"] as const).map((metric) => ({
      metric,
      labels,
      // A second without requests has no latency: no point, rather than a 0 that would read as instant answers.
      points: seconds
        .filter((s) => metric === "requests" || metric === "failures" || s.requests > 0)
        .map((s) => ({ t: s.t, v: s[metric] })),
    })),
    { metric: "vus", labels, points: byTime(facts.load).map((l) => ({ t: l.t, v: l.vus })) },
    { metric: "replicas", labels, points: infra.map((p) => ({ t: p.t, v: p.replicas })) },
    {
      metric: "cpu",
      labels,
      points: infra.filter((p) => p.cpuPercent !== null).map((p) => ({ t: p.t, v: p.cpuPercent as number })),
    },
    ...(facts.cost
      ? [{ metric: "cost" as const, labels: { ...labels, unit: facts.cost.unit }, points: [{ t: facts.cost.t, v: facts.cost.total }] }]
      : []),
  ];
  return series.filter((s) => s.points.length > 0);
}

/** One attempt at an export, as its log keeps it (the same shape as a notification delivery's). */
export const exportAttemptSchema = z.strictObject({
  at: z.iso.datetime(),
  ok: z.boolean(),
  code: z.number().int().nullable(),
  error: z.string().nullable(),
  ms: z.number().int().min(0),
});
export const exportAttemptsSchema = z.array(exportAttemptSchema);
export type ExportAttempt = z.infer<typeof exportAttemptSchema>;
