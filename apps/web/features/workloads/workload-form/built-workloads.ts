// What the workload form would save: the workloads its active tab builds, and the problems found before
// sending (the server checks again).
import { workloadSpec } from "@opsbench/core";
import { type Custom, customSpec } from "./custom-spec";
import { type PresetChoice, presetNamed, presetParams } from "./preset-choice";

export type WorkloadFormMode = "preset" | "custom" | "script";

export interface BuiltWorkloads {
  workloads: Array<{ name: string; spec: unknown }>;
  /** Problems found before sending (the server checks again). */
  problems: string[];
}

const issueText = (err: { issues: Array<{ path: PropertyKey[]; message: string }> }, prefix = "") =>
  err.issues.map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join(".")}: ${i.message}`);

export function buildWorkloads(
  mode: WorkloadFormMode,
  name: string,
  inputs: { source: string; custom: Custom; preset: PresetChoice },
): BuiltWorkloads {
  const baseName = name.trim();
  if (mode === "script") return { workloads: [{ name: baseName, spec: { kind: "script", source: inputs.source } }], problems: [] };
  if (mode === "custom") {
    const spec = customSpec(inputs.custom);
    const r = workloadSpec.safeParse(spec);
    return { workloads: [{ name: baseName, spec }], problems: r.success ? [] : issueText(r.error, "spec") };
  }
  const def = presetNamed(inputs.preset.preset);
  try {
    const list = def.build(presetParams(inputs.preset));
    return {
      workloads: list.map((w) => ({
        name: list.length > 1 ? `${baseName || def.name}${w.name.slice(def.name.length)}` : baseName,
        spec: w.spec,
      })),
      problems: [],
    };
  } catch (err) {
    const e = err as { issues?: Array<{ path: PropertyKey[]; message: string }>; message: string };
    return { workloads: [], problems: e.issues ? issueText({ issues: e.issues }) : [e.message] };
  }
}
