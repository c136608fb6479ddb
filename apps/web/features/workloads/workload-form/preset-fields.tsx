import { WORKLOAD_PRESETS } from "@opsbench/core";
import { FormField, inputClass, NumberInput } from "@/components/form-field";
import { DefaultMark } from "./default-mark";
import { DEFAULT_PRESET_CHOICE, type PresetChoice, presetNamed } from "./preset-choice";

const TIME_SCALES = ["1", "0.5", "0.1", "0.05", "0.01"];

/** The "Preset" tab: a load profile of the five studies, time-scaled, against a request path. */
export function PresetFields({ choice, onChange }: { choice: PresetChoice; onChange: (patch: Partial<PresetChoice>) => void }) {
  const def = presetNamed(choice.preset);
  return (
    <div className="space-y-3">
      <FormField label="Preset" path="preset" errors={[]} hint={`study ${def.study}: ${def.description}`}>
        <select
          name="preset"
          data-testid="preset-select"
          className={inputClass}
          value={choice.preset}
          onChange={(e) => onChange({ preset: e.target.value })}
        >
          {WORKLOAD_PRESETS.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name} (study {p.study})
            </option>
          ))}
        </select>
      </FormField>
      <div className="grid grid-cols-2 gap-3">
        <FormField
          label={
            <>
              Time scale <DefaultMark value={choice.timeScale} byDefault={DEFAULT_PRESET_CHOICE.timeScale} />
            </>
          }
          path="timeScale"
          errors={[]}
          hint="0.1 makes a 30-minute profile 3 minutes (VUs and rates stay)"
        >
          <NumberInput name="timeScale" value={choice.timeScale} onChange={(timeScale) => onChange({ timeScale })} />
        </FormField>
        <FormField
          label={
            <>
              {choice.preset === "payload-sweep" ? "Request path (POST)" : "Request path (GET)"}{" "}
              <DefaultMark value={choice.path} byDefault={DEFAULT_PRESET_CHOICE.path} />
            </>
          }
          path="path"
          errors={[]}
          hint="appended to the target's address"
        >
          <input name="path" className={inputClass} value={choice.path} onChange={(e) => onChange({ path: e.target.value })} />
        </FormField>
      </div>
      <div className="flex flex-wrap gap-1">
        {TIME_SCALES.map((f) => (
          <button
            key={f}
            type="button"
            onClick={() => onChange({ timeScale: f })}
            className={`rounded border px-1.5 font-mono text-2xs ${choice.timeScale === f ? "border-zinc-800 bg-zinc-800 text-white" : "border-zinc-300 text-zinc-600 hover:bg-zinc-50"}`}
          >
            ×{f}
          </button>
        ))}
      </div>
      {def.requires.includes("runId") && (
        <div className="grid grid-cols-2 gap-3">
          <FormField label="Step-ramp run id" path="runId" errors={[]} hint="the run whose maximum throughput sets the rate">
            <input
              name="runId"
              className={inputClass}
              value={choice.runId}
              onChange={(e) => onChange({ runId: e.target.value })}
              placeholder="00000000-0000-…"
            />
          </FormField>
          <FormField
            label={
              <>
                Percent of its maximum <DefaultMark value={choice.percent} byDefault={DEFAULT_PRESET_CHOICE.percent} />
              </>
            }
            path="percent"
            errors={[]}
          >
            <NumberInput name="percent" value={choice.percent} onChange={(percent) => onChange({ percent })} />
          </FormField>
        </div>
      )}
    </div>
  );
}
