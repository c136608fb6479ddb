// What a run's numbers are taken from, said under its latency figures: latency of every response beside that of
// successful ones, the warm-up left out (stated, or detected by MSER-5), a closed loop's coordinated omission (with the corrected latency where
// the pacing is known), and where a "% of a measured maximum" rate came from.
import { describeRateSource, describeWarmup, type RunSummary } from "@opsbench/core";
import { fmtMs } from "@/lib/format";

export function RunMeasurement({ s }: { s: RunSummary }) {
  const co = s.coordinatedOmission;
  const all = s.latencyMs;
  const warmup = describeWarmup(s);
  return (
    <div data-testid="run-measurement" className="space-y-0.5 font-mono text-2xs text-zinc-600">
      <p data-testid="latency-all">
        {s.successLatencyMs === undefined
          ? "latency of all responses (this summary predates successful-only latency)"
          : `above: successful responses only${s.successLatencyMs === null ? " (none succeeded)" : ""}; all responses`}
        : p50 {fmtMs(all.p50)} · p95 {fmtMs(all.p95)} · p99 {fmtMs(all.p99)} · max {fmtMs(all.max)} ms
      </p>
      {warmup && (
        <p data-testid="run-warmup" className={s.warmupDetection && s.warmupSeconds ? "text-amber-800" : undefined}>
          {warmup}
        </p>
      )}
      {co && (
        <p data-testid="run-coordinated-omission" className="text-amber-800">
          closed loop: latency tail understated when the target stalls (coordinated omission)
          {co.correctedLatencyMs
            ? `; corrected (a request every ${fmtMs(co.expectedIntervalMs ?? 0)} ms per VU): p50 ${fmtMs(co.correctedLatencyMs.p50)} · p95 ${fmtMs(co.correctedLatencyMs.p95)} · p99 ${fmtMs(co.correctedLatencyMs.p99)} ms`
            : "; the pacing is not constant, so no corrected latency"}
        </p>
      )}
      {s.rateSource && <p data-testid="run-rate-source">rate: {describeRateSource(s.rateSource)}</p>}
    </div>
  );
}
