"use client";

import type { GeneratedWorkloadSpec, WorkloadSpec } from "@opsbench/core";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { errorsAt, type FormErrors, NO_ERRORS } from "@/lib/api/form-errors";
import { FormErrorBanner, FormField, inputClass } from "@/components/form-field";
import { buttonPrimary } from "@/components/panel";
import { buildWorkloads, type WorkloadFormMode } from "./workload-form/built-workloads";
import { CustomLoadFields } from "./workload-form/custom-load-fields";
import { CustomRequestFields } from "./workload-form/custom-request-fields";
import { type Custom, customFromSpec, DEFAULT_CUSTOM } from "./workload-form/custom-spec";
import { ModeTabs } from "./workload-form/mode-tabs";
import { DEFAULT_PRESET_CHOICE, type PresetChoice } from "./workload-form/preset-choice";
import { PresetFields } from "./workload-form/preset-fields";
import { checkBeforeSaving, saveWorkloads } from "./workload-form/save-workloads";
import { readScriptFile, ScriptFields } from "./workload-form/script-fields";
import { WorkloadPreview } from "./workload-form/workload-preview";

/** A saved workload to edit: its name (fixed: saving replaces that workload's spec) and its spec (null: not readable). */
export interface WorkloadFormInitial {
  name: string;
  spec: WorkloadSpec | null;
}

/**
 * New workload: a preset of the five studies (time-scaled), a kind with its
 * fields, or the user's own k6 script. The load profile is drawn before
 * saving; the server checks again (a script with k6 inspect) and refuses with
 * the field named, saving nothing. With `initial`, the saved workload's spec
 * fills the boxes (its script, or the Build tab) and saving replaces it.
 */
export function WorkloadForm({ initial }: { initial?: WorkloadFormInitial }) {
  const router = useRouter();
  const initialSpec = initial?.spec ?? null;
  const saved: GeneratedWorkloadSpec | null = initialSpec && initialSpec.kind !== "script" ? initialSpec : null;
  const [mode, setMode] = useState<WorkloadFormMode>(initial ? (initialSpec?.kind === "script" ? "script" : "custom") : "preset");
  const [name, setName] = useState(initial?.name ?? "");
  const [preset, setPreset] = useState<PresetChoice>(DEFAULT_PRESET_CHOICE);
  const [custom, setCustom] = useState<Custom>(saved ? customFromSpec(saved) : DEFAULT_CUSTOM);
  const [source, setSource] = useState(initialSpec?.kind === "script" ? initialSpec.source : "");
  const [fileNote, setFileNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [serverErrors, setServerErrors] = useState<FormErrors>(NO_ERRORS);
  /** The form as it was at the last save tried; once the boxes differ, the errors shown are the boxes' own again. */
  const [triedAt, setTriedAt] = useState<string | null>(null);
  const [savedNames, setSavedNames] = useState<string[]>([]);

  const built = useMemo(() => buildWorkloads(mode, name, { source, custom, preset, saved }), [mode, name, source, custom, preset, saved]);
  const formKey = JSON.stringify([mode, name, built.workloads]);
  // Once a save was tried, every change asks the checks again: an error beside a field goes when it is fixed (the
  // server's, e.g. k6's refusal of a script, until the boxes change; then the server is asked at the next save).
  const errors = triedAt === null ? NO_ERRORS : triedAt === formKey ? serverErrors : (checkBeforeSaving(built, name) ?? NO_ERRORS);

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
    setTriedAt(formKey);
    setSavedNames([]);
    const problem = checkBeforeSaving(built, name);
    if (problem) {
      setServerErrors(problem);
      return;
    }
    setServerErrors(NO_ERRORS);
    setBusy(true);
    const result = await saveWorkloads(built.workloads);
    if (result.errors === null) {
      router.push(
        initial
          ? `/workloads/${encodeURIComponent(initial.name)}?saved=1`
          : `/workloads?saved=${encodeURIComponent(result.saved.join(","))}`,
      );
      router.refresh();
      return;
    }
    setServerErrors(result.errors);
    setSavedNames(result.saved);
    setBusy(false);
  }

  const at = (p: string) => errorsAt(errors, p);
  const scriptRefused = mode === "script" && at("spec.source").length > 0;

  return (
    <form
      data-testid="workload-form"
      data-editing={initial ? initial.name : undefined}
      onSubmit={submit}
      noValidate
      className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1.1fr)]"
    >
      <div className="space-y-4 rounded-md border border-zinc-200 bg-white p-4">
        <FormErrorBanner message={scriptRefused ? "" : errors.message} />
        <ModeTabs mode={mode} onMode={setMode} modes={initial ? ["custom", "script"] : undefined} />
        <FormField
          label="Name"
          path="name"
          errors={at("name")}
          hint={
            initial
              ? "saving replaces this workload's spec; its runs keep the spec they ran"
              : built.workloads.length > 1
                ? `saved as ${built.workloads.map((w) => w.name).join(", ")}`
                : "lower-case letters, digits, '.', '_' or '-'"
          }
        >
          <input
            name="name"
            className={inputClass}
            value={name}
            readOnly={initial !== undefined}
            onChange={(e) => setName(e.target.value)}
            placeholder={mode === "preset" ? `e.g. ${preset.preset}-fast` : "e.g. ramp-10"}
            aria-invalid={at("name").length > 0 || undefined}
          />
        </FormField>

        {mode === "preset" && <PresetFields choice={preset} onChange={(patch) => setPreset((p) => ({ ...p, ...patch }))} />}
        {mode === "custom" && (
          <div className="space-y-3">
            {saved && saved.kind === custom.kind && (
              <p className="text-2xs text-zinc-600">
                What these boxes do not show (the requests after the first, pools, setup, ramp-down) is kept from the saved spec.
              </p>
            )}
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
              : initial
                ? "Save changes"
                : built.workloads.length > 1
                  ? `Save ${built.workloads.length} workloads`
                  : "Save workload"}
          </button>
          {savedNames.length > 0 && <span className="text-2xs text-zinc-500">saved: {savedNames.join(", ")}</span>}
        </div>
      </div>
      <WorkloadPreview mode={mode} built={built} />
    </form>
  );
}
