// What the workload form would save: the workloads its active tab builds, and the problems found before
// sending (the server checks again).
import { type GeneratedWorkloadSpec, workloadSpec } from "@opsbench/core";
import { type Custom, customSpecOver } from "./custom-spec";
import { type PresetChoice, presetNamed, presetParams } from "./preset-choice";

export type WorkloadFormMode = "preset" | "custom" | "script";

export interface BuiltWorkloads {
  workloads: Array<{ name: string; spec: unknown }>;
  /** Problems found before sending (the server checks again). */
  problems: string[];
  /** The same problems by the field they are about ("spec.stages.0.duration"), for the messages beside the fields. */
  fieldProblems: Record<string, string[]>;
}

type Issue = { path: PropertyKey[]; message: string };
const pathOf = (i: Issue, prefix: string) => [prefix, ...i.path.map(String)].filter(Boolean).join(".");
const issueText = (issues: Issue[], prefix = "") => issues.map((i) => `${pathOf(i, prefix)}: ${i.message}`);
function byField(issues: Issue[], prefix = ""): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const i of issues) {
    const path = pathOf(i, prefix);
    out[path] = [...(out[path] ?? []), i.message];
  }
  return out;
}

export function buildWorkloads(
  mode: WorkloadFormMode,
  name: string,
  inputs: { source: string; custom: Custom; preset: PresetChoice; saved?: GeneratedWorkloadSpec | null },
): BuiltWorkloads {
  const baseName = name.trim();
  // Whether a script parses is k6's to say, at save (an empty one too).
  if (mode === "script")
    return { workloads: [{ name: baseName, spec: { kind: "script", source: inputs.source } }], problems: [], fieldProblems: {} };
  if (mode === "custom") {
    const spec = customSpecOver(inputs.custom, inputs.saved ?? null);
    const r = workloadSpec.safeParse(spec);
    return {
      workloads: [{ name: baseName, spec }],
      problems: r.success ? [] : issueText(r.error.issues, "spec"),
      fieldProblems: r.success ? {} : byField(r.error.issues, "spec"),
    };
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
      fieldProblems: {},
    };
  } catch (err) {
    const e = err as { issues?: Issue[]; message: string };
    return { workloads: [], problems: e.issues ? issueText(e.issues) : [e.message], fieldProblems: e.issues ? byField(e.issues) : {} };
  }
}
