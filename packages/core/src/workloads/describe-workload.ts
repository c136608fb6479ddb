// A workload in words, one describer for every kind: the workloads list, the workload page and home say what a
// workload does with it instead of showing its JSON (the targets' kinds have theirs in the web's target form).
import { formatDuration } from "./duration";
import { plannedSeconds, type WorkloadSpec, workloadSpec } from "./workload-spec";

const count = (n: number) => n.toLocaleString("en-US");
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;
const over = (spec: WorkloadSpec) => formatDuration(plannedSeconds(spec));

/** What each iteration sends: its requests (the first three), in order or one chosen by weight. */
function requestsLine(spec: Exclude<WorkloadSpec, { kind: "script" }>): string {
  const shown = spec.requests.slice(0, 3).map((r) => `${r.method} ${r.path}`);
  const more = spec.requests.length > 3 ? ` and ${plural(spec.requests.length - 3, "more request")}` : "";
  const list = shown.join(", ") + more;
  const each = spec.mix === "weighted" ? `each iteration sends one of ${list} (by weight)` : `each iteration sends ${list}`;
  return spec.thinkTime ? `${each}, then pauses` : each;
}

/** The load line of a generated kind. */
function loadLine(spec: Exclude<WorkloadSpec, { kind: "script" }>): string {
  switch (spec.kind) {
    case "ramping-vus": {
      const peak = Math.max(spec.startVUs, ...spec.stages.map((s) => s.target));
      return `closed model: from ${plural(spec.startVUs, "VU")} up to ${plural(peak, "VU")} in ${plural(spec.stages.length, "stage")} over ${over(spec)}`;
    }
    case "constant-vus":
      return `closed model: ${plural(spec.vus, "VU")} for ${spec.duration}`;
    case "shared-iterations":
      return `closed model: ${plural(spec.iterations, "iteration")} shared by ${plural(spec.vus, "VU")} (at most ${spec.maxDuration})`;
    case "constant-arrival-rate": {
      const rate =
        typeof spec.rate === "number"
          ? `${plural(spec.rate, "iteration")} per ${spec.timeUnit}`
          : `${spec.rate.percentOfRunMax}% of run ${spec.rate.runId.slice(0, 8)}'s maximum throughput`;
      return `open model: ${rate} for ${spec.duration}`;
    }
    case "ramping-arrival-rate": {
      const peak = Math.max(spec.startRate, ...spec.stages.map((s) => s.target));
      return `open model: from ${count(spec.startRate)} up to ${plural(peak, "iteration")} per ${spec.timeUnit} in ${plural(spec.stages.length, "stage")} over ${over(spec)}`;
    }
  }
}

/** A workload in words: what load it makes, then what each iteration sends (a script: what it is). */
export function describeWorkload(spec: WorkloadSpec): string[] {
  if (spec.kind === "script") {
    const lines = spec.source.split("\n").length;
    return [`own k6 script (${plural(lines, "line")}): its own options set the load`];
  }
  return [loadLine(spec), requestsLine(spec)];
}

/** A stored spec in words; null when it is not a valid workload spec (one saved by an older version). */
export function describeStoredWorkload(spec: unknown): string[] | null {
  const r = workloadSpec.safeParse(spec);
  return r.success ? describeWorkload(r.data) : null;
}
