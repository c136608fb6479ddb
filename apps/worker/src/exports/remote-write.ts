// Prometheus remote write 1.0 (https://prometheus.io/docs/specs/prw/remote_write_spec/): a WriteRequest of
// TimeSeries (labels sorted by name, __name__ among them; samples in time order), protobuf-encoded, then
// snappy-compressed (the block format, not the framed one), POSTed with the spec's headers.
//
//   message WriteRequest { repeated TimeSeries timeseries = 1; reserved 2; }
//   message TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
//   message Label        { string name = 1; string value = 2; }
//   message Sample       { double value = 1; int64 timestamp = 2; }  // timestamp: ms since the epoch
/// <reference path="../snappyjs.d.ts" />
import { EXPORT_METRICS, type ExportSeries } from "@opsbench/core";
import { compress } from "snappyjs";
import { ProtoWriter } from "./protobuf-writer";

export const REMOTE_WRITE_HEADERS = {
  "content-type": "application/x-protobuf",
  "content-encoding": "snappy",
  "x-prometheus-remote-write-version": "0.1.0",
} as const;

/** The WriteRequest's protobuf bytes (before compression). */
export function writeRequest(series: readonly ExportSeries[]): Uint8Array {
  const w = new ProtoWriter();
  for (const s of series) {
    const labels = Object.entries({ ...s.labels, __name__: EXPORT_METRICS[s.metric].name }).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    w.message(1, (ts) => {
      for (const [name, value] of labels) ts.message(1, (l) => l.string(1, name).string(2, value));
      for (const p of s.points) ts.message(2, (sample) => sample.double(1, p.v).uint(2, Math.round(p.t)));
    });
  }
  return w.finish();
}

/** The request body: the WriteRequest, snappy-compressed. */
export function remoteWriteBody(series: readonly ExportSeries[]): Uint8Array {
  return compress(writeRequest(series));
}
