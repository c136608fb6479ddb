// The "Preset" tab's choices, and the workloads a preset builds from them (one, or one per sweep member).
import { WORKLOAD_PRESETS } from "@opsbench/core";
import { numberOrUndefined } from "@/components/form-field";

export type WorkloadPreset = (typeof WORKLOAD_PRESETS)[number];

export interface PresetChoice {
  preset: string;
  timeScale: string;
  path: string;
  /** The step-ramp run a stable-at-percent preset takes its rate from. */
  runId: string;
  percent: string;
}
export const DEFAULT_PRESET_CHOICE: PresetChoice = { preset: "iot-spike", timeScale: "1", path: "/", runId: "", percent: "80" };

export const presetNamed = (name: string): WorkloadPreset => WORKLOAD_PRESETS.find((p) => p.name === name)!;

/** The preset's parameters from the boxes: a path other than "/" replaces the default request. */
export function presetParams(c: PresetChoice): Record<string, unknown> {
  const def = presetNamed(c.preset);
  const params: Record<string, unknown> = { timeScale: numberOrUndefined(c.timeScale) ?? 1 };
  const p = c.path.trim();
  if (c.preset === "payload-sweep") {
    if (p && p !== "/") params.path = p;
  } else if (p && p !== "/") {
    params.requests = [{ name: "request", method: "GET", path: p }];
  }
  if (def.requires.includes("runId")) {
    params.runId = c.runId.trim() || undefined;
    params.percent = numberOrUndefined(c.percent);
  }
  return params;
}
