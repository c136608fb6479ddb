// Cloud Monitoring ListTimeSeries for a Cloud Run service, aligned to 60 s periods:
// requests by response class, latency, instances, billable instance time, container
// CPU. Series are summed per period here (also when the API already reduced them).
import type { MetricServiceClient } from "@google-cloud/monitoring";
import type { PeriodValues } from "../cloud/period-observer";

export const PERIOD_SECONDS = 60;

interface Query {
  type: string;
  aligner: "ALIGN_DELTA" | "ALIGN_MEAN" | "ALIGN_MAX";
  /** The key each series adds to, from its labels. */
  key: (labels: Record<string, string>) => string | null;
  /** How a point becomes a number (distributions: their mean). */
  value: "number" | "distributionMean";
  /** Series of one key in one period: summed, or averaged. */
  combine: "sum" | "mean";
}

const QUERIES: Query[] = [
  {
    type: "run.googleapis.com/request_count",
    aligner: "ALIGN_DELTA",
    key: (l) => (l.response_code_class ? `requests${l.response_code_class}` : "requests"),
    value: "number",
    combine: "sum",
  },
  {
    type: "run.googleapis.com/request_latencies",
    aligner: "ALIGN_DELTA",
    key: () => "latencyMsMean",
    value: "distributionMean",
    combine: "mean",
  },
  {
    type: "run.googleapis.com/container/instance_count",
    aligner: "ALIGN_MAX",
    key: (l) => `instances${l.state === "idle" ? "Idle" : "Active"}`,
    value: "number",
    combine: "sum",
  },
  {
    type: "run.googleapis.com/container/billable_instance_time",
    aligner: "ALIGN_DELTA",
    key: () => "billableInstanceSeconds",
    value: "number",
    combine: "sum",
  },
  {
    type: "run.googleapis.com/container/cpu/utilizations",
    aligner: "ALIGN_DELTA",
    key: () => "cpuUtilization",
    value: "distributionMean",
    combine: "mean",
  },
];
export const CLOUD_RUN_KEYS = [
  "requests",
  "requests2xx",
  "requests4xx",
  "requests5xx",
  "latencyMsMean",
  "instancesActive",
  "instancesIdle",
  "billableInstanceSeconds",
  "cpuUtilization",
];

type Point = {
  interval?: { endTime?: { seconds?: unknown } | null } | null;
  value?: { int64Value?: unknown; doubleValue?: number | null; distributionValue?: { mean?: number | null } | null } | null;
};

function numberOf(p: Point, kind: Query["value"]): number | null {
  const v = p.value;
  if (!v) return null;
  if (kind === "distributionMean") return v.distributionValue?.mean ?? null;
  if (v.doubleValue != null) return v.doubleValue;
  return v.int64Value != null ? Number(v.int64Value) : null;
}

export function monitoringPeriods(monitoring: MetricServiceClient, project: string, serviceName: string) {
  return {
    async fetch(start: Date, end: Date): Promise<Map<number, PeriodValues>> {
      const out = new Map<number, PeriodValues>();
      const acc = new Map<string, { sum: number; n: number }>();
      for (const q of QUERIES) {
        const [series] = await monitoring.listTimeSeries({
          name: `projects/${project}`,
          filter: `metric.type = "${q.type}" AND resource.type = "cloud_run_revision" AND resource.labels.service_name = "${serviceName}"`,
          interval: { startTime: { seconds: Math.floor(start.getTime() / 1000) }, endTime: { seconds: Math.ceil(end.getTime() / 1000) } },
          aggregation: { alignmentPeriod: { seconds: PERIOD_SECONDS }, perSeriesAligner: q.aligner },
          view: "FULL",
        });
        for (const s of series) {
          const key = q.key({ ...(s.metric?.labels ?? {}) });
          if (!key) continue;
          for (const p of (s.points ?? []) as Point[]) {
            const endS = Number(p.interval?.endTime?.seconds ?? Number.NaN);
            const value = numberOf(p, q.value);
            if (!Number.isFinite(endS) || value === null) continue;
            // An aligned point stands for the period that ends at its end time.
            const period = Math.floor((endS * 1000 - 1) / (PERIOD_SECONDS * 1000)) * PERIOD_SECONDS * 1000;
            const a = acc.get(`${period}|${key}`) ?? { sum: 0, n: 0 };
            a.sum += value;
            a.n += q.combine === "mean" ? 1 : 0;
            acc.set(`${period}|${key}`, a);
          }
        }
      }
      for (const [k, a] of acc) {
        const [period, key] = k.split("|") as [string, string];
        const row = out.get(Number(period)) ?? Object.fromEntries(CLOUD_RUN_KEYS.map((c) => [c, null]));
        row[key] = a.n > 0 ? a.sum / a.n : a.sum;
        out.set(Number(period), row);
      }
      for (const row of out.values()) {
        const classes = [row.requests2xx, row.requests4xx, row.requests5xx, row.requests].filter((v): v is number => v != null);
        if (classes.length) row.requests = classes.reduce((a, b) => a + b, 0);
      }
      return out;
    },
  };
}
