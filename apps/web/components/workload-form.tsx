"use client";

import { loadProfile, plannedSeconds, WORKLOAD_PRESETS, workloadSpec, type LoadPoint } from "@opsbench/core";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { errorsAt, NO_ERRORS, readFormErrors, type FormErrors } from "@/lib/api/form-errors";
import { fmtDuration } from "@/lib/format";
import { FormErrorBanner, FormField, inputClass, NumberInput, numberOrUndefined } from "./form-field";
import { fmtClock, LoadProfileChart, type ProfileSeries } from "./load-profile-chart";
import { buttonPrimary, buttonSecondary } from "./panel";

type Mode = "preset" | "custom" | "script";
const KINDS = ["ramping-vus", "constant-vus", "shared-iterations", "constant-arrival-rate", "ramping-arrival-rate"] as const;
type Kind = (typeof KINDS)[number];
const KIND_LABELS: Record<Kind, string> = {
  "ramping-vus": "ramping VUs (closed model, stages)",
  "constant-vus": "constant VUs for a time (Fortio)",
  "shared-iterations": "N requests at C VUs (ab -n -c)",
  "constant-arrival-rate": "constant arrival rate (open model)",
  "ramping-arrival-rate": "ramping arrival rate (open model, stages)",
};
const NAME_RE = /^[a-z0-9][a-z0-9._-]*$/;
const MAX_SCRIPT_CHARS = 1_000_000;

interface Stage {
  duration: string;
  target: string;
}
interface Custom {
  kind: Kind;
  startVUs: string;
  stages: Stage[];
  vus: string;
  duration: string;
  iterations: string;
  maxDuration: string;
  rate: string;
  startRate: string;
  timeUnit: string;
  preAllocatedVUs: string;
  maxVUs: string;
  method: string;
  path: string;
  body: string;
  thinkTime: string;
  requestTimeout: string;
  p95Below: string;
}
const DEFAULT_CUSTOM: Custom = {
  kind: "ramping-vus",
  startVUs: "0",
  stages: [
    { duration: "30s", target: "10" },
    { duration: "1m", target: "10" },
    { duration: "30s", target: "0" },
  ],
  vus: "10",
  duration: "1m",
  iterations: "1000",
  maxDuration: "",
  rate: "20",
  startRate: "0",
  timeUnit: "1s",
  preAllocatedVUs: "20",
  maxVUs: "",
  method: "GET",
  path: "/",
  body: "",
  thinkTime: "",
  requestTimeout: "",
  p95Below: "",
};

interface Built {
  workloads: Array<{ name: string; spec: unknown }>;
  /** Problems found before sending (the server checks again). */
  problems: string[];
}

const issueText = (err: { issues: Array<{ path: PropertyKey[]; message: string }> }, prefix = "") =>
  err.issues.map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join(".")}: ${i.message}`);

/** A custom kind's fields as a spec; empty boxes are left out (defaults apply). */
function customSpec(c: Custom): Record<string, unknown> {
  const n = numberOrUndefined;
  const stages = c.stages.map((s) => ({ duration: s.duration.trim(), target: n(s.target) }));
  const p95 = n(c.p95Below);
  const program = {
    requests: [{ name: "request", method: c.method, path: c.path.trim() || "/", ...(c.body ? { body: c.body } : {}) }],
    ...(c.thinkTime.trim() ? { thinkTime: c.thinkTime.trim() } : {}),
    ...(c.requestTimeout.trim() ? { requestTimeout: c.requestTimeout.trim() } : {}),
    ...(p95 !== undefined ? { thresholds: { http_req_duration: [`p(95)<${p95}`] } } : {}),
  };
  const vusFields = { preAllocatedVUs: n(c.preAllocatedVUs), ...(c.maxVUs.trim() ? { maxVUs: n(c.maxVUs) } : {}) };
  switch (c.kind) {
    case "ramping-vus":
      return { kind: c.kind, startVUs: n(c.startVUs), stages, ...program };
    case "constant-vus":
      return { kind: c.kind, vus: n(c.vus), duration: c.duration.trim(), ...program };
    case "shared-iterations":
      return {
        kind: c.kind,
        vus: n(c.vus),
        iterations: n(c.iterations),
        ...(c.maxDuration.trim() ? { maxDuration: c.maxDuration.trim() } : {}),
        ...program,
      };
    case "constant-arrival-rate":
      return { kind: c.kind, rate: n(c.rate), timeUnit: c.timeUnit.trim() || "1s", duration: c.duration.trim(), ...vusFields, ...program };
    case "ramping-arrival-rate":
      return { kind: c.kind, startRate: n(c.startRate), timeUnit: c.timeUnit.trim() || "1s", stages, ...vusFields, ...program };
  }
}

function StageEditor({
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
      <legend className="mb-1 text-[11px] font-medium text-zinc-600">
        Stages <span className="font-normal text-zinc-400">(ramp linearly to the target over the duration; "0s" jumps)</span>
      </legend>
      <ol className="space-y-1">
        {stages.map((s, i) => {
          const e = [...errorsAt(errors, `spec.stages.${i}`, { nested: true })];
          return (
            <li key={i} className="flex flex-wrap items-center gap-2">
              <span className="w-5 text-right font-mono text-[11px] text-zinc-400">{i + 1}</span>
              <span className="w-24">
                <input
                  aria-label={`stage ${i + 1} duration`}
                  className={inputClass}
                  value={s.duration}
                  onChange={(ev) => set(i, { duration: ev.target.value })}
                  placeholder="30s"
                />
              </span>
              <span className="text-[11px] text-zinc-500">to</span>
              <span className="w-24">
                <NumberInput value={s.target} onChange={(v) => set(i, { target: v })} step="1" />
              </span>
              <span className="text-[11px] text-zinc-500">{targetLabel}</span>
              <button
                type="button"
                className="text-[11px] text-zinc-500 hover:text-red-600 disabled:opacity-30"
                disabled={stages.length <= 1}
                onClick={() => onChange(stages.filter((_, j) => j !== i))}
              >
                remove
              </button>
              {e.length > 0 && (
                <span data-testid={`error-spec.stages.${i}`} role="alert" className="basis-full pl-7 text-[11px] text-red-600">
                  {e.join("; ")}
                </span>
              )}
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        className="mt-1 text-[11px] text-blue-600 hover:underline"
        onClick={() => onChange([...stages, { duration: "30s", target: stages.at(-1)?.target ?? "0" }])}
      >
        + add a stage
      </button>
      {general.length > 0 && (
        <p role="alert" className="text-[11px] text-red-600">
          {general.join("; ")}
        </p>
      )}
    </fieldset>
  );
}

/**
 * New workload: a preset of the five studies (time-scaled), a kind with its
 * fields, or the user's own k6 script. The load profile is drawn before
 * saving; the server checks again (a script with k6 inspect) and refuses with
 * the field named, saving nothing.
 */
export function WorkloadForm() {
  const router = useRouter();
  const [mode, setMode] = useState<Mode>("preset");
  const [name, setName] = useState("");
  const [preset, setPreset] = useState("iot-spike");
  const [timeScale, setTimeScale] = useState("1");
  const [path, setPath] = useState("/");
  const [runId, setRunId] = useState("");
  const [percent, setPercent] = useState("80");
  const [custom, setCustom] = useState<Custom>(DEFAULT_CUSTOM);
  const [source, setSource] = useState("");
  const [fileNote, setFileNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saved, setSaved] = useState<string[]>([]);

  const presetDef = WORKLOAD_PRESETS.find((p) => p.name === preset)!;
  const upd = (patch: Partial<Custom>) => setCustom((c) => ({ ...c, ...patch }));

  const built: Built = useMemo(() => {
    const baseName = name.trim();
    if (mode === "script") return { workloads: [{ name: baseName, spec: { kind: "script", source } }], problems: [] };
    if (mode === "custom") {
      const spec = customSpec(custom);
      const r = workloadSpec.safeParse(spec);
      return { workloads: [{ name: baseName, spec }], problems: r.success ? [] : issueText(r.error, "spec") };
    }
    const params: Record<string, unknown> = { timeScale: numberOrUndefined(timeScale) ?? 1 };
    const p = path.trim();
    if (preset === "payload-sweep") {
      if (p && p !== "/") params.path = p;
    } else if (p && p !== "/") {
      params.requests = [{ name: "request", method: "GET", path: p }];
    }
    if (presetDef.requires.includes("runId")) {
      params.runId = runId.trim() || undefined;
      params.percent = numberOrUndefined(percent);
    }
    try {
      const list = presetDef.build(params);
      return {
        workloads: list.map((w) => ({
          name: list.length > 1 ? `${baseName || presetDef.name}${w.name.slice(presetDef.name.length)}` : baseName,
          spec: w.spec,
        })),
        problems: [],
      };
    } catch (err) {
      const e = err as { issues?: Array<{ path: PropertyKey[]; message: string }>; message: string };
      return { workloads: [], problems: e.issues ? issueText({ issues: e.issues }) : [e.message] };
    }
  }, [mode, name, source, custom, timeScale, path, preset, presetDef, runId, percent]);

  const series: ProfileSeries[] = useMemo(() => {
    if (mode === "script" || built.problems.length > 0) return [];
    const out: ProfileSeries[] = [];
    for (const w of built.workloads) {
      const r = workloadSpec.safeParse(w.spec);
      if (r.success) out.push({ label: w.name || "workload", points: loadProfile(r.data) as LoadPoint[] });
    }
    return out;
  }, [mode, built]);

  const planned = useMemo(() => {
    const first = built.workloads[0];
    if (!first || mode === "script" || built.problems.length) return null;
    const r = workloadSpec.safeParse(first.spec);
    return r.success ? { seconds: plannedSeconds(r.data), kind: r.data.kind } : null;
  }, [built, mode]);

  async function onFile(file: File | undefined) {
    if (!file) return;
    if (file.size > MAX_SCRIPT_CHARS * 4) {
      setFileNote(`${file.name} is too large (a script may be at most 1,000,000 characters)`);
      return;
    }
    setSource(await file.text());
    setFileNote(`loaded ${file.name} (${file.size} bytes)`);
    if (!name.trim())
      setName(
        file.name
          .replace(/\.(m?js)$/i, "")
          .toLowerCase()
          .replace(/[^a-z0-9._-]+/g, "-")
          .replace(/^[^a-z0-9]+/, ""),
      );
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setErrors(NO_ERRORS);
    setSaved([]);
    if (built.problems.length > 0) {
      setErrors({ message: `fix these first: ${built.problems.join("; ")}`, fields: {} });
      return;
    }
    if (!name.trim()) {
      setErrors({ message: "name: give the workload a name", fields: { name: ["give the workload a name"] } });
      return;
    }
    const badName = built.workloads.find((w) => !NAME_RE.test(w.name));
    if (badName) {
      const msg = "use lower-case letters, digits, '.', '_' or '-'";
      setErrors({ message: `name: "${badName.name}": ${msg}`, fields: { name: [msg] } });
      return;
    }
    setBusy(true);
    const done: string[] = [];
    try {
      for (const w of built.workloads) {
        const res = await fetch("/api/v1/workloads", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(w),
        });
        if (!res.ok) {
          const errs = await readFormErrors(res);
          setErrors(
            built.workloads.length > 1
              ? { ...errs, message: `${w.name}: ${errs.message}${done.length ? ` (saved before it: ${done.join(", ")})` : ""}` }
              : errs,
          );
          setSaved(done);
          setBusy(false);
          return;
        }
        done.push(w.name);
      }
      router.push(`/workloads?saved=${encodeURIComponent(done.join(","))}`);
    } catch (err) {
      setErrors({ message: (err as Error).message, fields: {} });
      setSaved(done);
      setBusy(false);
    }
  }

  const at = (p: string) => errorsAt(errors, p);
  const scriptErrors = errorsAt(errors, "spec.source");
  const tab = (m: Mode, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={mode === m}
      data-testid={`mode-${m}`}
      onClick={() => {
        setMode(m);
        setErrors(NO_ERRORS);
      }}
      className={`h-7 rounded px-3 text-xs font-medium ${mode === m ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100"}`}
    >
      {label}
    </button>
  );
  const rateUnit = `per ${custom.timeUnit.trim() || "1s"}`;

  return (
    <form
      data-testid="workload-form"
      onSubmit={submit}
      noValidate
      className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1.1fr)]"
    >
      <div className="space-y-4 rounded-md border border-zinc-200 bg-white p-4">
        <FormErrorBanner message={mode === "script" && scriptErrors.length > 0 ? "" : errors.message} />
        <div role="tablist" className="inline-flex gap-1 rounded border border-zinc-200 p-0.5">
          {tab("preset", "Preset")}
          {tab("custom", "Build")}
          {tab("script", "Own k6 script")}
        </div>
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
            placeholder={mode === "preset" ? `e.g. ${preset}-fast` : "e.g. ramp-10"}
            aria-invalid={at("name").length > 0 || undefined}
          />
        </FormField>

        {mode === "preset" && (
          <div className="space-y-3">
            <FormField label="Preset" path="preset" errors={[]} hint={`study ${presetDef.study}: ${presetDef.description}`}>
              <select
                name="preset"
                data-testid="preset-select"
                className={inputClass}
                value={preset}
                onChange={(e) => setPreset(e.target.value)}
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
                label="Time scale"
                path="timeScale"
                errors={[]}
                hint="0.1 makes a 30-minute profile 3 minutes (VUs and rates stay)"
              >
                <NumberInput name="timeScale" value={timeScale} onChange={setTimeScale} placeholder="1" />
              </FormField>
              <FormField
                label={preset === "payload-sweep" ? "Request path (POST)" : "Request path (GET)"}
                path="path"
                errors={[]}
                hint="appended to the target's address"
              >
                <input name="path" className={inputClass} value={path} onChange={(e) => setPath(e.target.value)} placeholder="/" />
              </FormField>
            </div>
            <div className="flex flex-wrap gap-1">
              {["1", "0.5", "0.1", "0.05", "0.01"].map((f) => (
                <button
                  key={f}
                  type="button"
                  onClick={() => setTimeScale(f)}
                  className={`rounded border px-1.5 font-mono text-[11px] ${timeScale === f ? "border-zinc-800 bg-zinc-800 text-white" : "border-zinc-300 text-zinc-600 hover:bg-zinc-50"}`}
                >
                  ×{f}
                </button>
              ))}
            </div>
            {presetDef.requires.includes("runId") && (
              <div className="grid grid-cols-2 gap-3">
                <FormField label="Step-ramp run id" path="runId" errors={[]} hint="the run whose maximum throughput sets the rate">
                  <input
                    name="runId"
                    className={inputClass}
                    value={runId}
                    onChange={(e) => setRunId(e.target.value)}
                    placeholder="00000000-0000-…"
                  />
                </FormField>
                <FormField label="Percent of its maximum" path="percent" errors={[]}>
                  <NumberInput name="percent" value={percent} onChange={setPercent} placeholder="80" />
                </FormField>
              </div>
            )}
          </div>
        )}

        {mode === "custom" && (
          <div className="space-y-3">
            <FormField label="Kind" path="spec.kind" errors={at("spec.kind")}>
              <select
                name="kind"
                data-testid="kind-select"
                className={inputClass}
                value={custom.kind}
                onChange={(e) => upd({ kind: e.target.value as Kind })}
              >
                {KINDS.map((k) => (
                  <option key={k} value={k}>
                    {k}: {KIND_LABELS[k]}
                  </option>
                ))}
              </select>
            </FormField>
            <div className="grid grid-cols-2 gap-3 md:grid-cols-3">
              {custom.kind === "ramping-vus" && (
                <FormField label="Start VUs" path="spec.startVUs" errors={at("spec.startVUs")}>
                  <NumberInput value={custom.startVUs} onChange={(v) => upd({ startVUs: v })} step="1" />
                </FormField>
              )}
              {(custom.kind === "constant-vus" || custom.kind === "shared-iterations") && (
                <FormField label="VUs (concurrency)" path="spec.vus" errors={at("spec.vus")}>
                  <NumberInput value={custom.vus} onChange={(v) => upd({ vus: v })} step="1" />
                </FormField>
              )}
              {custom.kind === "shared-iterations" && (
                <>
                  <FormField label="Requests (iterations)" path="spec.iterations" errors={at("spec.iterations")}>
                    <NumberInput value={custom.iterations} onChange={(v) => upd({ iterations: v })} step="1" />
                  </FormField>
                  <FormField label="Max duration" path="spec.maxDuration" errors={at("spec.maxDuration")} hint="default 30m">
                    <input
                      className={inputClass}
                      value={custom.maxDuration}
                      onChange={(e) => upd({ maxDuration: e.target.value })}
                      placeholder="30m"
                    />
                  </FormField>
                </>
              )}
              {custom.kind === "constant-arrival-rate" && (
                <FormField label={`Rate (${rateUnit})`} path="spec.rate" errors={at("spec.rate")}>
                  <NumberInput value={custom.rate} onChange={(v) => upd({ rate: v })} step="1" />
                </FormField>
              )}
              {custom.kind === "ramping-arrival-rate" && (
                <FormField label={`Start rate (${rateUnit})`} path="spec.startRate" errors={at("spec.startRate")}>
                  <NumberInput value={custom.startRate} onChange={(v) => upd({ startRate: v })} step="1" />
                </FormField>
              )}
              {(custom.kind === "constant-vus" || custom.kind === "constant-arrival-rate") && (
                <FormField label="Duration" path="spec.duration" errors={at("spec.duration")}>
                  <input
                    className={inputClass}
                    value={custom.duration}
                    onChange={(e) => upd({ duration: e.target.value })}
                    placeholder="1m"
                  />
                </FormField>
              )}
              {(custom.kind === "constant-arrival-rate" || custom.kind === "ramping-arrival-rate") && (
                <>
                  <FormField label="Time unit" path="spec.timeUnit" errors={at("spec.timeUnit")}>
                    <input
                      className={inputClass}
                      value={custom.timeUnit}
                      onChange={(e) => upd({ timeUnit: e.target.value })}
                      placeholder="1s"
                    />
                  </FormField>
                  <FormField label="Pre-allocated VUs" path="spec.preAllocatedVUs" errors={at("spec.preAllocatedVUs")}>
                    <NumberInput value={custom.preAllocatedVUs} onChange={(v) => upd({ preAllocatedVUs: v })} step="1" />
                  </FormField>
                  <FormField label="Max VUs" path="spec.maxVUs" errors={at("spec.maxVUs")} hint="more busy: iterations dropped">
                    <NumberInput value={custom.maxVUs} onChange={(v) => upd({ maxVUs: v })} step="1" placeholder="= pre-allocated" />
                  </FormField>
                </>
              )}
            </div>
            {(custom.kind === "ramping-vus" || custom.kind === "ramping-arrival-rate") && (
              <StageEditor
                stages={custom.stages}
                onChange={(stages) => upd({ stages })}
                errors={errors}
                targetLabel={custom.kind === "ramping-vus" ? "VUs" : `iterations ${rateUnit}`}
              />
            )}
            <div className="grid grid-cols-[6rem_minmax(0,1fr)] gap-3 border-t border-zinc-100 pt-3">
              <FormField label="Method" path="spec.requests.0.method" errors={at("spec.requests.0.method")}>
                <select className={inputClass} value={custom.method} onChange={(e) => upd({ method: e.target.value })}>
                  {["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"].map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              </FormField>
              <FormField
                label="Path"
                path="spec.requests.0.path"
                errors={at("spec.requests.0.path")}
                hint="templates allowed, e.g. /?n={{randomInt 1 100}}"
              >
                <input className={inputClass} value={custom.path} onChange={(e) => upd({ path: e.target.value })} placeholder="/" />
              </FormField>
            </div>
            {custom.method !== "GET" && custom.method !== "HEAD" && (
              <FormField label="Body" path="spec.requests.0.body" errors={at("spec.requests.0.body")}>
                <textarea className={`${inputClass} h-16 py-1`} value={custom.body} onChange={(e) => upd({ body: e.target.value })} />
              </FormField>
            )}
            <div className="grid grid-cols-3 gap-3">
              <FormField label="Think time" path="spec.thinkTime" errors={at("spec.thinkTime")} hint="pause after each iteration">
                <input
                  className={inputClass}
                  value={custom.thinkTime}
                  onChange={(e) => upd({ thinkTime: e.target.value })}
                  placeholder="none"
                />
              </FormField>
              <FormField label="Request timeout" path="spec.requestTimeout" errors={at("spec.requestTimeout")}>
                <input
                  className={inputClass}
                  value={custom.requestTimeout}
                  onChange={(e) => upd({ requestTimeout: e.target.value })}
                  placeholder="60s"
                />
              </FormField>
              <FormField
                label="Threshold: p95 below (ms)"
                path="spec.thresholds"
                errors={errorsAt(errors, "spec.thresholds", { nested: true })}
              >
                <NumberInput value={custom.p95Below} onChange={(v) => upd({ p95Below: v })} placeholder="none" />
              </FormField>
            </div>
          </div>
        )}

        {mode === "script" && (
          <div className="space-y-2">
            <p className="text-[11px] text-zinc-500">
              Send requests to <code className="rounded bg-zinc-100 px-1">__ENV.OPSBENCH_BASE_URL</code>. The script is checked with k6 (
              <code>k6 inspect</code>) before it is saved; its checks and custom metrics appear on the run page.
            </p>
            <div className="flex flex-wrap items-center gap-2">
              <label className={`${buttonSecondary} cursor-pointer`}>
                Upload a .js file
                <input
                  type="file"
                  data-testid="script-file"
                  accept=".js,.mjs,text/javascript,application/javascript"
                  className="hidden"
                  onChange={(e) => void onFile(e.target.files?.[0])}
                />
              </label>
              {fileNote && <span className="text-[11px] text-zinc-500">{fileNote}</span>}
            </div>
            <textarea
              data-testid="script-source"
              name="source"
              spellCheck={false}
              value={source}
              onChange={(e) => setSource(e.target.value)}
              aria-invalid={scriptErrors.length > 0 || undefined}
              placeholder={
                'import http from "k6/http";\n\nexport const options = { vus: 5, duration: "30s" };\n\nexport default function () {\n  http.get(`${__ENV.OPSBENCH_BASE_URL}/`);\n}'
              }
              className={`${inputClass} h-72 resize-y py-1 leading-5`}
            />
            {scriptErrors.length > 0 && (
              <div
                data-testid="script-error"
                role="alert"
                className="rounded border border-red-300 bg-red-50 px-2 py-1.5 text-xs text-red-800"
              >
                <p className="font-medium">k6 refused the script; nothing was saved.</p>
                <pre className="mt-1 whitespace-pre-wrap break-words font-mono text-[11px]">{scriptErrors.join("\n")}</pre>
              </div>
            )}
          </div>
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

      <div className="min-w-0 space-y-3">
        <LoadProfileChart
          series={series}
          note={
            mode === "script"
              ? "A script's own options set its load; opsbench does not draw it."
              : built.problems.length > 0
                ? "Fix the fields to see the profile."
                : planned?.kind === "shared-iterations"
                  ? "Ends when all its requests are done (at most its max duration)."
                  : undefined
          }
        />
        {built.problems.length > 0 && mode !== "script" && (
          <ul
            data-testid="workload-problems"
            className="space-y-0.5 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-[11px] text-amber-900"
          >
            {built.problems.slice(0, 8).map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        {planned && (
          <p className="text-xs text-zinc-600">
            Planned load:{" "}
            <b data-testid="planned-seconds" data-seconds={planned.seconds}>
              {planned.seconds > 0
                ? `${planned.kind === "shared-iterations" ? "at most " : ""}${fmtClock(planned.seconds)} (${fmtDuration(planned.seconds * 1000)})`
                : "—"}
            </b>
            {built.workloads.length > 1 && <> each, {built.workloads.length} workloads</>}
          </p>
        )}
        {mode !== "script" && built.workloads.length > 0 && built.problems.length === 0 && (
          <details className="rounded-md border border-zinc-200 bg-white">
            <summary className="cursor-pointer px-3 py-1.5 text-xs text-zinc-600">The spec that will be saved (JSON)</summary>
            <pre
              data-testid="workload-spec-json"
              className="max-h-80 overflow-auto border-t border-zinc-100 px-3 py-2 font-mono text-[11px] leading-4 text-zinc-700"
            >
              {JSON.stringify(built.workloads.length === 1 ? built.workloads[0]!.spec : built.workloads, null, 2)}
            </pre>
          </details>
        )}
      </div>
    </form>
  );
}
