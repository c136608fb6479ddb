// OTLP metrics over HTTP (https://opentelemetry.io/docs/specs/otlp/#otlphttp), binary protobuf: an
// ExportMetricsServiceRequest with one ResourceMetrics (service.name "opsbench"), one ScopeMetrics, and a Gauge
// per metric whose data points carry the run's labels as attributes. Field numbers from opentelemetry-proto
// (collector/metrics/v1/metrics_service.proto, metrics/v1/metrics.proto, common/v1/common.proto):
//
//   ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
//   ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
//   Resource        { repeated KeyValue attributes = 1; }
//   ScopeMetrics    { InstrumentationScope scope = 1; repeated Metric metrics = 2; }
//   InstrumentationScope { string name = 1; string version = 2; }
//   Metric          { string name = 1; string description = 2; string unit = 3; Gauge gauge = 5; }
//   Gauge           { repeated NumberDataPoint data_points = 1; }
//   NumberDataPoint { fixed64 time_unix_nano = 3; double as_double = 4; repeated KeyValue attributes = 7; }
//   KeyValue        { string key = 1; AnyValue value = 2; }
//   AnyValue        { string string_value = 1; }
import { EXPORT_METRICS, type ExportMetricKey, type ExportSeries } from "@opsbench/core";
import { ProtoWriter } from "./protobuf-writer";

export const OTLP_HEADERS = { "content-type": "application/x-protobuf" } as const;

const keyValue = (w: ProtoWriter, field: number, key: string, value: string) =>
  w.message(field, (kv) => kv.string(1, key).message(2, (v) => v.string(1, value)));

export function otlpMetricsBody(series: readonly ExportSeries[], version = "1"): Uint8Array {
  // One Metric per name: each series of it adds its points (attributes tell them apart).
  const byMetric = new Map<ExportMetricKey, ExportSeries[]>();
  for (const s of series) byMetric.set(s.metric, [...(byMetric.get(s.metric) ?? []), s]);
  const w = new ProtoWriter();
  w.message(1, (rm) => {
    rm.message(1, (resource) => keyValue(resource, 1, "service.name", "opsbench"));
    rm.message(2, (sm) => {
      sm.message(1, (scope) => scope.string(1, "opsbench.results-export").string(2, version));
      for (const [key, list] of byMetric) {
        const m = EXPORT_METRICS[key];
        sm.message(2, (metric) => {
          metric.string(1, m.name).string(2, m.help);
          if (m.unit) metric.string(3, m.unit);
          metric.message(5, (gauge) => {
            for (const s of list)
              for (const p of s.points)
                gauge.message(1, (dp) => {
                  dp.fixed64(3, BigInt(Math.round(p.t)) * 1_000_000n).double(4, p.v);
                  for (const [k, v] of Object.entries(s.labels)) keyValue(dp, 7, k, v);
                });
          });
        });
      }
    });
  });
  return w.finish();
}
