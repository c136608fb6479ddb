"use client";

import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { errorsAt, type FormErrors, NO_ERRORS } from "@/lib/api/form-errors";
import { FormErrorBanner, FormField, inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";
import { buildWorkloads, type WorkloadFormMode } from "./workload-form/built-workloads";
import { CustomLoadFields } from "./workload-form/custom-load-fields";
import { CustomRequestFields } from "./workload-form/custom-request-fields";
import { type Custom, DEFAULT_CUSTOM } from "./workload-form/custom-spec";
import { ModeTabs } from "./workload-form/mode-tabs";
import { DEFAULT_PRESET_CHOICE, type PresetChoice } from "./workload-form/preset-choice";
import { PresetFields } from "./workload-form/preset-fields";
import { checkBeforeSaving, saveWorkloads } from "./workload-form/save-workloads";
import { readScriptFile, ScriptFields } from "./workload-form/script-fields";
import { WorkloadPreview } from "./workload-form/workload-preview";

/**
 * New workload: a preset of the five studies (time-scaled), a kind with its
 * fields, or the user's own k6 script. The load profile is drawn before
 * saving; the server checks again (a script with k6 inspect) and refuses with
 * the field named, saving nothing.
 */
export function WorkloadForm() {
  const router = useRouter();
  const [mode, setMode] = useState<WorkloadFormMode>("preset");
  const [name, setName] = useState("");
  const [preset, setPreset] = useState<PresetChoice>(DEFAULT_PRESET_CHOICE);
  const [custom, setCustom] = useState<Custom>(DEFAULT_CUSTOM);
  const [source, setSource] = useState("");
  const [fileNote, setFileNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saved, setSaved] = useState<string[]>([]);

  const built = useMemo(() => buildWorkloads(mode, name, { source, custom, preset }), [mode, name, source, custom, preset]);

  async function onFile(file: File | undefined) {
    if (!file) return;
    const read = await readScriptFile(file);
    setFileNote(read.note);
    if (read.source === null) return;
    setSource(read.source);
    if (!name.trim()) setName(read.name);
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setErrors(NO_ERRORS);
    setSaved([]);
    const problem = checkBeforeSaving(built, name);
    if (problem) {
      setErrors(problem);
      return;
    }
    setBusy(true);
    const result = await saveWorkloads(built.workloads);
    if (result.errors === null) {
      router.push(`/workloads?saved=${encodeURIComponent(result.saved.join(","))}`);
      return;
    }
    setErrors(result.errors);
    setSaved(result.saved);
    setBusy(false);
  }

  const at = (p: string) => errorsAt(errors, p);
  const scriptRefused = mode === "script" && at("spec.source").length > 0;

  return (
    <form
      data-testid="workload-form"
      onSubmit={submit}
      noValidate
      className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1.1fr)]"
    >
      <div className="space-y-4 rounded-md border border-zinc-200 bg-white p-4">
        <FormErrorBanner message={scriptRefused ? "" : errors.message} />
        <ModeTabs
          mode={mode}
          onMode={(m) => {
            setMode(m);
            setErrors(NO_ERRORS);
          }}
        />
        <FormField
          label="Name"
          path="name"
          errors={at("name")}
          hint={
            built.workloads.length > 1
              ? `saved as ${built.workloads.map((w) => w.name).join(", ")}`
              : "lower-case letters, digits, '.', '_' or '-'"
          }
        >
          <input
            name="name"
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={mode === "preset" ? `e.g. ${preset.preset}-fast` : "e.g. ramp-10"}
            aria-invalid={at("name").length > 0 || undefined}
          />
        </FormField>

        {mode === "preset" && <PresetFields choice={preset} onChange={(patch) => setPreset((p) => ({ ...p, ...patch }))} />}
        {mode === "custom" && (
          <div className="space-y-3">
            <CustomLoadFields custom={custom} onChange={(patch) => setCustom((c) => ({ ...c, ...patch }))} errors={errors} />
            <CustomRequestFields custom={custom} onChange={(patch) => setCustom((c) => ({ ...c, ...patch }))} errors={errors} />
          </div>
        )}
        {mode === "script" && (
          <ScriptFields source={source} onSource={setSource} fileNote={fileNote} onFile={(f) => void onFile(f)} errors={errors} />
        )}

        <div className="flex flex-wrap items-center gap-3 border-t border-zinc-100 pt-3">
          <button type="submit" data-testid="workload-save" className={buttonPrimary} disabled={busy}>
            {busy
              ? mode === "script"
                ? "Checking with k6…"
                : "Saving…"
              : built.workloads.length > 1
                ? `Save ${built.workloads.length} workloads`
                : "Save workload"}
          </button>
          {saved.length > 0 && <span className="text-[11px] text-zinc-500">saved: {saved.join(", ")}</span>}
        </div>
      </div>
      <WorkloadPreview mode={mode} built={built} />
    </form>
  );
}
