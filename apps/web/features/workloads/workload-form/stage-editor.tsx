import { errorsAt, type FormErrors } from "@/lib/api/form-errors";
import { inputClass, NumberInput } from "@/components/form-field";
import type { Stage } from "./custom-spec";

/** The stages of a ramping kind: each a duration and a target, added and removed in place. */
export function StageEditor({
  stages,
  onChange,
  errors,
  targetLabel,
}: {
  stages: Stage[];
  onChange: (s: Stage[]) => void;
  errors: FormErrors;
  targetLabel: string;
}) {
  const set = (i: number, patch: Partial<Stage>) => onChange(stages.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const general = errorsAt(errors, "spec.stages");
  return (
    <fieldset data-field="spec.stages" className="min-w-0">
      <legend className="mb-1 text-2xs font-medium text-zinc-600">
        Stages <span className="font-normal text-zinc-400">(ramp linearly to the target over the duration; "0s" jumps)</span>
      </legend>
      <ol className="space-y-1">
        {stages.map((s, i) => {
          const e = [...errorsAt(errors, `spec.stages.${i}`, { nested: true })];
          return (
            <li key={i} className="flex flex-wrap items-center gap-2">
              <span className="w-5 text-right font-mono text-2xs text-zinc-400">{i + 1}</span>
              <span className="w-24">
                <input
                  aria-label={`stage ${i + 1} duration`}
                  className={inputClass}
                  value={s.duration}
                  onChange={(ev) => set(i, { duration: ev.target.value })}
                />
              </span>
              <span className="text-2xs text-zinc-500">to</span>
              {/* biome-ignore lint/a11y/noLabelWithoutControl: the control is the NumberInput inside */}
              <label className="w-24">
                <span className="sr-only">stage {i + 1} target</span>
                <NumberInput value={s.target} onChange={(v) => set(i, { target: v })} step="1" />
              </label>
              <span className="text-2xs text-zinc-500">{targetLabel}</span>
              <button
                type="button"
                className="text-2xs text-zinc-500 hover:text-red-600 disabled:opacity-30"
                disabled={stages.length <= 1}
                onClick={() => onChange(stages.filter((_, j) => j !== i))}
              >
                remove
              </button>
              {e.length > 0 && (
                <span data-testid={`error-spec.stages.${i}`} role="alert" className="basis-full pl-7 text-2xs text-red-600">
                  {e.join("; ")}
                </span>
              )}
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        className="mt-1 text-2xs text-blue-600 hover:underline"
        onClick={() => onChange([...stages, { duration: "30s", target: stages.at(-1)?.target ?? "0" }])}
      >
        + add a stage
      </button>
      {general.length > 0 && (
        <p role="alert" className="text-2xs text-red-600">
          {general.join("; ")}
        </p>
      )}
    </fieldset>
  );
}
