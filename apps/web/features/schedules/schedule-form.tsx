"use client";

// The form that saves a schedule (POST /api/v1/schedules): what each tick starts (a run of a target x workload, or
// a saved study's definition again), the cron pattern and its time zone. The API checks the pattern and the zone and
// its messages are shown beside the boxes; the page then shows the new schedule with its next ticks.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { FormErrorBanner, FormField, inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";
import { useInBrowser } from "@/components/use-in-browser";
import { errorsAt, NO_ERRORS, readFormErrors, type FormErrors } from "@/lib/api/form-errors";

export interface ScheduleFormOptions {
  targets: string[];
  workloads: string[];
  studies: { id: string; name: string }[];
}

/** A few patterns to start from; any five-field pattern may be typed. */
const EXAMPLES = [
  ["0 3 * * *", "every day at 03:00"],
  ["0 * * * *", "every hour"],
  ["*/15 * * * *", "every 15 minutes"],
  ["0 6 * * 1-5", "weekdays at 06:00"],
] as const;

export function ScheduleForm({ targets, workloads, studies }: ScheduleFormOptions) {
  const router = useRouter();
  const inBrowser = useInBrowser();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<"run" | "study">("run");
  const [target, setTarget] = useState(targets[0] ?? "");
  const [workload, setWorkload] = useState(workloads[0] ?? "");
  const [studyId, setStudyId] = useState(studies[0]?.id ?? "");
  const [cron, setCron] = useState("0 3 * * *");
  const [timeZone, setTimeZone] = useState("UTC");
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const at = (path: string) => errorsAt(errors, path, { nested: true });

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    const what = kind === "run" ? { kind, target, workload } : { kind, studyId };
    try {
      const res = await fetch("/api/v1/schedules", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: name.trim(), what, cron, timeZone: timeZone.trim() }),
      });
      if (!res.ok) {
        setErrors(await readFormErrors(res));
        return;
      }
      setName("");
      router.refresh();
    } catch (err) {
      setErrors({ message: (err as Error).message, fields: {} });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form data-testid="schedule-form" onSubmit={submit} noValidate className="space-y-3 p-3">
      <FormErrorBanner message={errors.message} />
      <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
        <FormField label="Name" path="name" errors={at("name")}>
          <input
            name="name"
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. nightly shop check"
            aria-invalid={at("name").length > 0 || undefined}
          />
        </FormField>
        <FormField label="Each tick starts" path="what.kind" errors={at("what.kind")}>
          <select name="kind" className={inputClass} value={kind} onChange={(e) => setKind(e.target.value as "run" | "study")}>
            <option value="run">a run (target × workload)</option>
            <option value="study">a study (a saved study's definition)</option>
          </select>
        </FormField>
        {kind === "run" ? (
          <div className="grid grid-cols-2 gap-3">
            <FormField label="Target" path="what.target" errors={at("what.target")}>
              <select name="target" className={inputClass} value={target} onChange={(e) => setTarget(e.target.value)}>
                {targets.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </FormField>
            <FormField label="Workload" path="what.workload" errors={at("what.workload")}>
              <select name="workload" className={inputClass} value={workload} onChange={(e) => setWorkload(e.target.value)}>
                {workloads.map((w) => (
                  <option key={w} value={w}>
                    {w}
                  </option>
                ))}
              </select>
            </FormField>
          </div>
        ) : (
          <FormField label="Study" path="what.studyId" errors={at("what.studyId")} hint="its targets, workloads and settings, copied now">
            <select name="study" className={inputClass} value={studyId} onChange={(e) => setStudyId(e.target.value)}>
              {studies.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </FormField>
        )}
      </div>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
        <FormField
          label="Cron pattern"
          path="cron"
          errors={at("cron")}
          hint="minute hour day-of-month month day-of-week, e.g. 0 3 * * * (every day at 03:00)"
        >
          <input
            name="cron"
            className={inputClass}
            value={cron}
            onChange={(e) => setCron(e.target.value)}
            list="schedule-cron-examples"
            aria-invalid={at("cron").length > 0 || undefined}
          />
        </FormField>
        <datalist id="schedule-cron-examples">
          {EXAMPLES.map(([pattern, label]) => (
            <option key={pattern} value={pattern} label={label} />
          ))}
        </datalist>
        <FormField
          label="Time zone"
          path="timeZone"
          errors={at("timeZone")}
          hint="an IANA zone, e.g. Europe/Berlin; the pattern is read in it"
        >
          <input
            name="timeZone"
            className={inputClass}
            value={timeZone}
            onChange={(e) => setTimeZone(e.target.value)}
            aria-invalid={at("timeZone").length > 0 || undefined}
          />
        </FormField>
        <div className="flex items-end">
          <button type="submit" data-testid="schedule-save" className={buttonPrimary} disabled={busy || !inBrowser}>
            {busy ? "Saving…" : "Save schedule"}
          </button>
        </div>
      </div>
    </form>
  );
}
