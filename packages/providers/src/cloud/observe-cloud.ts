// The observe() of every cloud kind (aws-asg, aws-lambda, gcp-cloud-run): open the platform's
// metrics source, record its periods through observePeriods, and close the source when the
// window's periods are in or the consumer stops. A kind gives only its own part: which metric
// marks a period as reported, and how one period's values become replicas, CPU and detail.
import type { PlatformMetricsSettings } from "@opsbench/core";
import type { InfraPoint, ObserveWindow } from "../provider";
import { observePeriods, type PeriodValues, runningTotals } from "./period-observer";

/** One period of a kind's platform metrics, as the kind reads it. */
export interface CloudPeriodPoint<T extends string> {
  replicas: number;
  cpuPercent: number | null;
  /** The kind's own fields of the point's detail, beside kind, resolutionSeconds, platform and totals. */
  detail?: Record<string, unknown>;
  /** This period's part of each additive metric; detail.totals holds their sums so far. */
  add: Partial<Record<T, number | null>>;
}

export interface CloudObserver<T extends string> {
  kind: string;
  periodSeconds: number;
  /** Metric whose value marks a period as reported (e.g. inServiceInstances). */
  primary: string;
  /** The additive metrics summed into detail.totals (instance-seconds, billed time, requests). */
  totals: readonly T[];
  /** Opens the platform's metrics source (values per period start between start and end). */
  open(): Promise<{ fetch(start: Date, end: Date): Promise<Map<number, PeriodValues>>; close(): void | Promise<void> }>;
  /** The kind's reading of one period's values (its `add` names only metrics of `totals`). */
  point(values: PeriodValues): CloudPeriodPoint<NoInfer<T>>;
}

export async function* observeCloud<T extends string>(
  observer: CloudObserver<T>,
  window: ObserveWindow,
  metrics: PlatformMetricsSettings | undefined,
  log: (msg: string, data?: Record<string, unknown>) => void,
): AsyncIterable<InfraPoint> {
  const source = await observer.open();
  const totals = runningTotals(observer.totals);
  try {
    yield* observePeriods(
      {
        periodSeconds: observer.periodSeconds,
        primary: observer.primary,
        fetch: source.fetch,
        toPoint: (ts, v) => {
          const p = observer.point(v);
          return {
            ts,
            replicas: p.replicas,
            cpuPercent: p.cpuPercent,
            detail: { kind: observer.kind, resolutionSeconds: observer.periodSeconds, ...p.detail, platform: v, totals: totals(p.add) },
          };
        },
      },
      window,
      metrics,
      log,
    );
  } finally {
    await source.close();
  }
}
