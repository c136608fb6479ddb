"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { DEFAULT_PRIMARY_METRIC } from "@opsbench/core";
import { useState } from "react";
import { errorsAt, NO_ERRORS, readFormErrors, type FormErrors } from "@/lib/api/form-errors";
import { fmtDuration } from "@/lib/format";
import { FormErrorBanner, FormField, inputClass, NumberInput, numberOrUndefined } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";
import { StudyPlannerPanel } from "./study-planner-panel";

interface Option {
  name: string;
  kind: string;
  plannedSeconds?: number;
}

/** Rough per-run overhead for the estimate (deploy, baseline, teardown), as the study's ETA assumes before it has measured one. */
const OVERHEAD_SECONDS = 10;

function Picker({
  label,
  path,
  options,
  chosen,
  onToggle,
  errors,
  addHref,
}: {
  label: string;
  path: string;
  options: Option[];
  chosen: string[];
  onToggle: (n: string) => void;
  errors: FormErrors;
  /** Where to add one when there is none yet. */
  addHref: string;
}) {
  const errs = errorsAt(errors, path, { nested: true });
  return (
    <fieldset data-field={path} className="min-w-0">
      <legend className="mb-1 text-2xs font-medium text-zinc-600">
        {label} <span className="text-zinc-400">({chosen.length} chosen)</span>
      </legend>
      {options.length === 0 ? (
        <p className="text-xs text-zinc-400">
          No {label.toLowerCase()} yet:{" "}
          <Link href={addHref} className="text-blue-600 hover:underline">
            add one
          </Link>
          .
        </p>
      ) : (
        <ul className="max-h-56 divide-y divide-zinc-100 overflow-auto rounded border border-zinc-200">
          {options.map((o) => (
            <li key={o.name}>
              <label className="flex cursor-pointer items-center gap-2 px-2 py-1 text-xs hover:bg-zinc-50">
                <input type="checkbox" name={path} value={o.name} checked={chosen.includes(o.name)} onChange={() => onToggle(o.name)} />
                <span className="font-mono font-medium">{o.name}</span>
                <span className="rounded bg-zinc-100 px-1 font-mono text-2xs text-zinc-600">{o.kind}</span>
                {o.plannedSeconds ? (
                  <span className="ml-auto font-mono text-2xs text-zinc-400">{fmtDuration(o.plannedSeconds * 1000)}</span>
                ) : null}
              </label>
            </li>
          ))}
        </ul>
      )}
      {errs.length > 0 && (
        <p data-testid={`error-${path}`} role="alert" className="mt-0.5 text-2xs text-red-600">
          {errs.join("; ")}
        </p>
      )}
    </fieldset>
  );
}

/** New study: targets x workloads x repetitions, posted to /api/v1/studies; opens the study page. */
export function StudyForm({ targets, workloads }: { targets: Option[]; workloads: Option[] }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [chosenTargets, setTargets] = useState<string[]>([]);
  const [chosenWorkloads, setWorkloads] = useState<string[]>([]);
  const [repetitions, setRepetitions] = useState("3");
  const [order, setOrder] = useState<"interleaved-random" | "sequential">("interleaved-random");
  const [cooldown, setCooldown] = useState("60");
  const [baselineWait, setBaselineWait] = useState("");
  const [warmup, setWarmup] = useState("");
  const [seed, setSeed] = useState("");
  const [primaryMetric, setPrimaryMetric] = useState(DEFAULT_PRIMARY_METRIC);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const toggle = (list: string[], set: (v: string[]) => void) => (n: string) =>
    set(list.includes(n) ? list.filter((x) => x !== n) : [...list, n]);
  const reps = Number(repetitions) || 0;
  const runs = chosenTargets.length * chosenWorkloads.length * reps;
  const loadSeconds =
    chosenWorkloads.reduce((a, w) => a + (workloads.find((x) => x.name === w)?.plannedSeconds ?? 0), 0) * chosenTargets.length * reps;
  const estimate =
    runs > 0 ? loadSeconds + runs * OVERHEAD_SECONDS + Math.max(0, runs - 1) * (cooldown.trim() === "" ? 60 : Number(cooldown) || 0) : 0;

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    const body = {
      name: name.trim(),
      targets: chosenTargets,
      workloads: chosenWorkloads,
      repetitions: numberOrUndefined(repetitions),
      order,
      cooldownSeconds: numberOrUndefined(cooldown),
      baselineWaitSeconds: numberOrUndefined(baselineWait),
      warmupSeconds: numberOrUndefined(warmup),
      seed: numberOrUndefined(seed),
      primaryMetric,
    };
    try {
      const res = await fetch("/api/v1/studies", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) {
        setErrors(await readFormErrors(res));
        setBusy(false);
        return;
      }
      const created = (await res.json()) as { id: string };
      router.push(`/studies/${created.id}`);
    } catch (err) {
      setErrors({ message: (err as Error).message, fields: {} });
      setBusy(false);
    }
  }

  const at = (path: string) => errorsAt(errors, path);
  /** A whole-number setting, its box named by its path in the request. */
  const wholeNumber = (
    label: string,
    path: string,
    hint: string,
    [value, onChange]: [string, (v: string) => void],
    placeholder?: string,
  ) => (
    <FormField label={label} path={path} errors={at(path)} hint={hint}>
      <NumberInput name={path} value={value} onChange={onChange} step="1" placeholder={placeholder} invalid={at(path).length > 0} />
    </FormField>
  );
  return (
    <form data-testid="study-form" onSubmit={submit} noValidate className="space-y-4 rounded-md border border-zinc-200 bg-white p-4">
      <FormErrorBanner message={errors.message} />
      <FormField label="Name" path="name" errors={at("name")} className="max-w-md">
        <input
          name="name"
          className={inputClass}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="e.g. one replica or two"
          aria-invalid={at("name").length > 0 || undefined}
        />
      </FormField>
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <Picker
          label="Targets"
          path="targets"
          options={targets}
          chosen={chosenTargets}
          onToggle={toggle(chosenTargets, setTargets)}
          errors={errors}
          addHref="/targets/new"
        />
        <Picker
          label="Workloads"
          path="workloads"
          options={workloads}
          chosen={chosenWorkloads}
          onToggle={toggle(chosenWorkloads, setWorkloads)}
          errors={errors}
          addHref="/workloads/new"
        />
      </div>
      <div className="grid grid-cols-2 gap-3 md:grid-cols-5">
        {wholeNumber("Repetitions", "repetitions", "runs of each cell (3 or more)", [repetitions, setRepetitions])}
        <FormField
          label="Run order"
          path="order"
          errors={at("order")}
          hint={order === "interleaved-random" ? "each round runs every cell once, shuffled" : "each cell's repetitions in a block"}
        >
          <select name="order" className={inputClass} value={order} onChange={(e) => setOrder(e.target.value as typeof order)}>
            <option value="interleaved-random">interleaved-random</option>
            <option value="sequential">sequential</option>
          </select>
        </FormField>
        {wholeNumber("Cool-down (s)", "cooldownSeconds", "pause before each run", [cooldown, setCooldown], "60")}
        {wholeNumber(
          "Baseline wait (s)",
          "baselineWaitSeconds",
          "then the run goes ahead, flagged",
          [baselineWait, setBaselineWait],
          "120",
        )}
        {wholeNumber("Warm-up (s)", "warmupSeconds", "left out of each run's summary, verdicts and tables", [warmup, setWarmup], "0")}
        {wholeNumber("Seed (optional)", "seed", "of the run order; drawn and recorded if empty", [seed, setSeed], "random")}
      </div>
      <StudyPlannerPanel
        targets={chosenTargets}
        workloads={chosenWorkloads}
        repetitions={reps}
        primaryMetric={primaryMetric}
        onPrimaryMetric={setPrimaryMetric}
      />
      <div className="flex flex-wrap items-center gap-3 border-t border-zinc-100 pt-3">
        <button type="submit" className={buttonPrimary} disabled={busy}>
          {busy ? "Starting…" : "Start study"}
        </button>
        <span data-testid="study-plan" className="text-xs text-zinc-600">
          {chosenTargets.length} target{chosenTargets.length === 1 ? "" : "s"} × {chosenWorkloads.length} workload
          {chosenWorkloads.length === 1 ? "" : "s"} × {reps} = <b>{runs}</b> run{runs === 1 ? "" : "s"}
          {estimate > 0 && (
            <>
              {" "}
              · about {fmtDuration(estimate * 1000)} (load, ~{OVERHEAD_SECONDS} s per run for deploy and teardown, and cool-downs)
            </>
          )}
        </span>
      </div>
    </form>
  );
}
