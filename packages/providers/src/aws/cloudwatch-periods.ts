// CloudWatch GetMetricData for a run's metrics: one query per metric, 60 s periods,
// values by period start (docs/cloud-targets.md lists the metrics of each kind). Percentiles
// (extended statistics, "p99") are asked with GetMetricStatistics' ExtendedStatistics, one call
// per metric, so that a service that cannot answer them (moto ignores ExtendedStatistics) leaves
// that value empty instead of failing the whole query.
import {
  CloudWatchClient,
  type Datapoint,
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  type MetricDataQuery,
} from "@aws-sdk/client-cloudwatch";
import type { PeriodValues } from "../cloud/period-observer";
import type { AwsSession } from "./session";

export interface CloudWatchMetric {
  /** The name the point records it under (detail.platform). */
  key: string;
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  /** A statistic, or a percentile as an extended statistic ("p99", "p99.9"). */
  stat: "Average" | "Sum" | "Maximum" | "Minimum" | "SampleCount" | `p${number}`;
}

const isExtended = (m: CloudWatchMetric) => /^p\d+(\.\d+)?$/.test(m.stat);

/** A datapoint's extended statistic (null when the service did not answer it). */
export const extendedValue = (dp: Datapoint, stat: string): number | null => dp.ExtendedStatistics?.[stat] ?? null;

export const PERIOD_SECONDS = 60;

export function cloudWatchPeriods(session: AwsSession, metrics: CloudWatchMetric[]) {
  const cw = new CloudWatchClient(session);
  const plain = metrics.filter((m) => !isExtended(m));
  const extended = metrics.filter(isExtended);
  const emptyRow = () => Object.fromEntries(metrics.map((m) => [m.key, null])) as PeriodValues;
  const queries: MetricDataQuery[] = plain.map((m, i) => ({
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
          const key = plain[Number(result.Id?.slice(1))]?.key;
          if (!key) continue;
          (result.Timestamps ?? []).forEach((ts, i) => {
            const period = Math.floor(ts.getTime() / (PERIOD_SECONDS * 1000)) * PERIOD_SECONDS * 1000;
            const row = out.get(period) ?? emptyRow();
            row[key] = result.Values?.[i] ?? null;
            out.set(period, row);
          });
        }
        NextToken = r.NextToken;
      } while (NextToken);
      for (const m of extended) {
        const r = await cw.send(
          new GetMetricStatisticsCommand({
            Namespace: m.namespace,
            MetricName: m.metricName,
            Dimensions: Object.entries(m.dimensions).map(([Name, Value]) => ({ Name, Value })),
            StartTime: start,
            EndTime: end,
            Period: PERIOD_SECONDS,
            ExtendedStatistics: [m.stat],
          }),
        );
        for (const dp of r.Datapoints ?? []) {
          const value = extendedValue(dp, m.stat);
          if (!dp.Timestamp || value === null) continue;
          const period = Math.floor(dp.Timestamp.getTime() / (PERIOD_SECONDS * 1000)) * PERIOD_SECONDS * 1000;
          const row = out.get(period) ?? emptyRow();
          row[m.key] = value;
          out.set(period, row);
        }
      }
      return out;
    },
    close: () => cw.destroy(),
  };
}
