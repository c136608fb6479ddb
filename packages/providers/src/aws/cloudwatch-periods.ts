// CloudWatch GetMetricData for a run's metrics: one query per metric, 60 s periods,
// values by period start (docs/cloud-targets.md lists the metrics of each kind).
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery } from "@aws-sdk/client-cloudwatch";
import type { PeriodValues } from "../cloud/period-observer";
import type { AwsSession } from "./session";

export interface CloudWatchMetric {
  /** The name the point records it under (detail.platform). */
  key: string;
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  stat: "Average" | "Sum" | "Maximum" | "Minimum" | "SampleCount";
}

export const PERIOD_SECONDS = 60;

export function cloudWatchPeriods(session: AwsSession, metrics: CloudWatchMetric[]) {
  const cw = new CloudWatchClient(session);
  const queries: MetricDataQuery[] = metrics.map((m, i) => ({
    Id: `m${i}`,
    Label: m.key,
    MetricStat: {
      Metric: {
        Namespace: m.namespace,
        MetricName: m.metricName,
        Dimensions: Object.entries(m.dimensions).map(([Name, Value]) => ({ Name, Value })),
      },
      Period: PERIOD_SECONDS,
      Stat: m.stat,
    },
    ReturnData: true,
  }));
  return {
    async fetch(start: Date, end: Date): Promise<Map<number, PeriodValues>> {
      const out = new Map<number, PeriodValues>();
      let NextToken: string | undefined;
      do {
        const r = await cw.send(
          new GetMetricDataCommand({ MetricDataQueries: queries, StartTime: start, EndTime: end, NextToken, ScanBy: "TimestampAscending" }),
        );
        for (const result of r.MetricDataResults ?? []) {
          const key = metrics[Number(result.Id?.slice(1))]?.key;
          if (!key) continue;
          (result.Timestamps ?? []).forEach((ts, i) => {
            const period = Math.floor(ts.getTime() / (PERIOD_SECONDS * 1000)) * PERIOD_SECONDS * 1000;
            const row = out.get(period) ?? Object.fromEntries(metrics.map((m) => [m.key, null]));
            row[key] = result.Values?.[i] ?? null;
            out.set(period, row);
          });
        }
        NextToken = r.NextToken;
      } while (NextToken);
      return out;
    },
    close: () => cw.destroy(),
  };
}
