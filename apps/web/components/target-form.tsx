"use client";

import {
  FUNCTION_PLATFORM_DEFAULTS,
  FUNCTION_PLATFORMS,
  functionSettings,
  LOCAL_APPS,
  localFunctionSpec,
  localServiceSpec,
  PLACEMENTS,
  serviceSettings,
  type FunctionPlatform,
} from "@opsbench/core";
import { useRouter } from "next/navigation";
import { useMemo, useState, type ReactNode } from "react";
import { errorsAt, NO_ERRORS, readFormErrors, type FormErrors } from "@/lib/api/form-errors";
import { FormErrorBanner, FormField, inputClass, NumberInput, numberOrUndefined } from "./form-field";
import { buttonPrimary } from "./panel";

type Kind = "local-service" | "local-function";

/** Every input of both kinds as text; empty = leave out (the kind's default applies). */
const EMPTY = {
  replicas: "2",
  minReplicas: "1",
  maxReplicas: "4",
  targetCpuPercent: "50",
  syncPeriodMs: "",
  tolerance: "",
  scaleDownStabilizationMs: "",
  scaleUpStabilizationMs: "",
  cpuRequest: "",
  cpuLimit: "",
  memoryLimitMb: "",
  balancing: "",
  placement: "",
  network: "",
  startTimeoutMs: "",
  concurrency: "",
  minInstances: "",
  maxInstances: "",
  idleTimeoutMs: "",
  queueTimeoutMs: "",
  maxQueue: "",
  billingMode: "",
  granularityMs: "",
  minimumMs: "",
};
type Values = typeof EMPTY;

const n = numberOrUndefined;
/** Drops undefined values, and the whole object when nothing is left. */
function compact<T extends Record<string, unknown>>(o: T): Partial<T> | undefined {
  const out = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== "")) as Partial<T>;
  return Object.keys(out).length ? out : undefined;
}

function buildSpec(kind: Kind, app: string, scaling: "fixed" | "autoscaled", v: Values): Record<string, unknown> {
  const resources = compact({
    ...(kind === "local-service" ? { cpuRequest: n(v.cpuRequest) } : {}),
    cpuLimit: n(v.cpuLimit),
    memoryLimitMb: n(v.memoryLimitMb),
  });
  const common = { app, ...(resources ? { resources } : {}), ...(v.startTimeoutMs.trim() ? { startTimeoutMs: n(v.startTimeoutMs) } : {}) };
  if (kind === "local-service") {
    const size =
      scaling === "fixed"
        ? { replicas: n(v.replicas) }
        : {
            minReplicas: n(v.minReplicas),
            maxReplicas: n(v.maxReplicas),
            autoscaler: compact({
              targetCpuPercent: n(v.targetCpuPercent),
              syncPeriodMs: n(v.syncPeriodMs),
              tolerance: n(v.tolerance),
              scaleDownStabilizationMs: n(v.scaleDownStabilizationMs),
              scaleUpStabilizationMs: n(v.scaleUpStabilizationMs),
            }) ?? { targetCpuPercent: undefined },
          };
    return { ...common, ...compact(size), ...compact({ balancing: v.balancing, placement: v.placement, network: v.network }) };
  }
  const billing = compact({ mode: v.billingMode || undefined, granularityMs: n(v.granularityMs), minimumMs: n(v.minimumMs) });
  return {
    ...common,
    ...compact({
      concurrency: n(v.concurrency),
      minInstances: n(v.minInstances),
      maxInstances: n(v.maxInstances),
      idleTimeoutMs: n(v.idleTimeoutMs),
      queueTimeoutMs: n(v.queueTimeoutMs),
      maxQueue: n(v.maxQueue),
    }),
    ...(billing ? { billing } : {}),
  };
}

const secs = (ms: number) => (ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

function Section({ title, children, note }: { title: string; children: ReactNode; note?: ReactNode }) {
  return (
    <fieldset className="space-y-2 border-t border-zinc-100 pt-3">
      <legend className="text-xs font-semibold text-zinc-700">{title}</legend>
      {note && <p className="text-[11px] text-zinc-500">{note}</p>}
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">{children}</div>
    </fieldset>
  );
}

/** New target: a form per local kind; the API's 422 issues are shown next to their fields. */
export function TargetForm() {
  const router = useRouter();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("local-service");
  const [app, setApp] = useState<string>("cpu-loop/node-http");
  const [scaling, setScaling] = useState<"fixed" | "autoscaled">("autoscaled");
  const [platform, setPlatform] = useState<FunctionPlatform>("cloud-run");
  const [v, setV] = useState<Values>(EMPTY);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const set = (key: keyof Values) => (value: string) => setV((old) => ({ ...old, [key]: value }));

  const spec = useMemo(() => {
    const s = buildSpec(kind, app, scaling, v);
    return kind === "local-function" ? { ...s, platform } : s;
  }, [kind, app, scaling, v, platform]);

  /** The settings it will run with (defaults filled in), when the spec is valid. */
  const effective = useMemo(() => {
    if (kind === "local-service") {
      const r = localServiceSpec.safeParse(spec);
      if (!r.success) return null;
      const s = serviceSettings(r.data);
      return [
        `${s.minReplicas === s.maxReplicas ? `${s.minReplicas} replica(s)` : `${s.minReplicas}..${s.maxReplicas} replicas`}`,
        s.autoscaler
          ? `autoscaler at ${s.autoscaler.targetCpuPercent}% of ${s.resources.cpuRequest} core(s), sync ${secs(s.autoscaler.syncPeriodMs)}, tolerance ${s.autoscaler.tolerance}, scale-down window ${secs(s.autoscaler.scaleDownStabilizationMs)}`
          : "no autoscaler",
        `limits: ${s.resources.cpuLimit ?? "no"} CPU, ${s.resources.memoryLimitMb !== null ? `${s.resources.memoryLimitMb} MiB` : "no memory limit"}`,
        `${s.balancing} balancing, ${s.placement}, ${s.network}`,
      ];
    }
    const r = localFunctionSpec.safeParse(spec);
    if (!r.success) return null;
    const f = functionSettings(r.data);
    return [
      `${f.platform}: concurrency ${f.concurrency} per instance, ${f.minInstances}..${f.maxInstances} instances`,
      `idle timeout ${secs(f.idleTimeoutMs)}, queue timeout ${secs(f.queueTimeoutMs)} (max ${f.maxQueue} waiting)`,
      `billed ${f.billing.mode}, rounded up to ${f.billing.granularityMs} ms, at least ${f.billing.minimumMs} ms`,
    ];
  }, [kind, spec]);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      const res = await fetch("/api/v1/targets", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: name.trim(), kind, spec }),
      });
      if (!res.ok) {
        setErrors(await readFormErrors(res));
        setBusy(false);
        return;
      }
      router.push(`/targets?saved=${encodeURIComponent(name.trim())}`);
    } catch (err) {
      setErrors({ message: (err as Error).message, fields: {} });
      setBusy(false);
    }
  }

  const at = (p: string) => errorsAt(errors, p);
  /** A number field bound to a value, with its errors at `spec.<path>`. */
  const num = (label: string, key: keyof Values, path: string, opts: { hint?: ReactNode; placeholder?: string; step?: string } = {}) => (
    <FormField label={label} path={`spec.${path}`} errors={at(`spec.${path}`)} hint={opts.hint}>
      <NumberInput
        name={path}
        value={v[key]}
        onChange={set(key)}
        placeholder={opts.placeholder}
        step={opts.step}
        invalid={at(`spec.${path}`).length > 0}
      />
    </FormField>
  );
  const pick = (label: string, key: keyof Values, path: string, options: readonly string[], defaultLabel: string) => (
    <FormField label={label} path={`spec.${path}`} errors={at(`spec.${path}`)}>
      <select name={path} className={inputClass} value={v[key]} onChange={(e) => set(key)(e.target.value)}>
        <option value="">{defaultLabel}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </FormField>
  );
  const d = FUNCTION_PLATFORM_DEFAULTS[platform];
  const unplaced = Object.keys(errors.fields).length > 0;

  return (
    <form data-testid="target-form" onSubmit={submit} noValidate className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,1fr)_20rem]">
      <div className="space-y-4 rounded-md border border-zinc-200 bg-white p-4">
        <FormErrorBanner message={errors.message && (unplaced ? `The target was not saved: ${errors.message}` : errors.message)} />
        <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
          <FormField label="Name" path="name" errors={at("name")} hint="lower-case letters, digits, '.', '_' or '-'">
            <input
              name="name"
              className={inputClass}
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. taewa-hpa"
              aria-invalid={at("name").length > 0 || undefined}
            />
          </FormField>
          <FormField label="Kind" path="kind" errors={at("kind")}>
            <select
              name="kind"
              data-testid="target-kind"
              className={inputClass}
              value={kind}
              onChange={(e) => {
                setKind(e.target.value as Kind);
                setErrors(NO_ERRORS);
              }}
            >
              <option value="local-service">local-service (replicas, HPA)</option>
              <option value="local-function">local-function (scale to zero)</option>
            </select>
          </FormField>
          <FormField label="App (benchapps/)" path="spec.app" errors={at("spec.app")}>
            <select name="app" className={inputClass} value={app} onChange={(e) => setApp(e.target.value)}>
              {LOCAL_APPS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </FormField>
        </div>

        {kind === "local-service" && (
          <>
            <fieldset className="space-y-2 border-t border-zinc-100 pt-3">
              <legend className="text-xs font-semibold text-zinc-700">Replicas</legend>
              <div className="flex gap-4 text-xs">
                {(["fixed", "autoscaled"] as const).map((m) => (
                  <label key={m} className="inline-flex items-center gap-1.5">
                    <input type="radio" name="scaling" value={m} checked={scaling === m} onChange={() => setScaling(m)} />
                    {m === "fixed" ? "a fixed number" : "min/max with a CPU autoscaler (like an HPA)"}
                  </label>
                ))}
              </div>
              <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
                {scaling === "fixed" ? (
                  num("Replicas", "replicas", "replicas", { step: "1" })
                ) : (
                  <>
                    {num("Min replicas", "minReplicas", "minReplicas", { step: "1", placeholder: "1" })}
                    {num("Max replicas", "maxReplicas", "maxReplicas", { step: "1", placeholder: "4" })}
                    {num("Target CPU %", "targetCpuPercent", "autoscaler.targetCpuPercent", { step: "1", hint: "of the CPU request" })}
                    {num("Sync period (ms)", "syncPeriodMs", "autoscaler.syncPeriodMs", {
                      step: "1",
                      placeholder: "15000",
                      hint: "HPA: 15 s",
                    })}
                    {num("Scale-down window (ms)", "scaleDownStabilizationMs", "autoscaler.scaleDownStabilizationMs", {
                      step: "1",
                      placeholder: "300000",
                      hint: "stabilization; HPA: 5 min",
                    })}
                    {num("Scale-up window (ms)", "scaleUpStabilizationMs", "autoscaler.scaleUpStabilizationMs", {
                      step: "1",
                      placeholder: "0",
                    })}
                    {num("Tolerance", "tolerance", "autoscaler.tolerance", { placeholder: "0.1", hint: "no change within ±10%" })}
                  </>
                )}
              </div>
            </fieldset>
            <Section
              title="Per replica"
              note="Limits are enforced with cgroups where the OS allows; the run records it when they could not be."
            >
              {num("CPU request (cores)", "cpuRequest", "resources.cpuRequest", {
                placeholder: "= limit, else 1",
                hint: "the autoscaler's 100%",
              })}
              {num("CPU limit (cores)", "cpuLimit", "resources.cpuLimit", { placeholder: "none" })}
              {num("Memory limit (MiB)", "memoryLimitMb", "resources.memoryLimitMb", { step: "1", placeholder: "none" })}
              {num("Start timeout (ms)", "startTimeoutMs", "startTimeoutMs", { step: "1", placeholder: "10000" })}
            </Section>
            <Section title="Placement and network" note="Placement matters for multi-service apps (msd/*): which services share a process.">
              {pick("Balancing", "balancing", "balancing", ["per-request", "per-connection"], "per-request (default)")}
              {pick("Placement", "placement", "placement", PLACEMENTS, "co-located (default)")}
              {pick("Network", "network", "network", ["loopback", "namespaces"], "loopback (default)")}
            </Section>
          </>
        )}

        {kind === "local-function" && (
          <>
            <Section title="Platform" note="The platform sets the defaults (shown greyed); fill a box to override it.">
              <FormField label="Platform preset" path="spec.platform" errors={at("spec.platform")}>
                <select
                  name="platform"
                  data-testid="target-platform"
                  className={inputClass}
                  value={platform}
                  onChange={(e) => setPlatform(e.target.value as FunctionPlatform)}
                >
                  {FUNCTION_PLATFORMS.map((p) => (
                    <option key={p} value={p}>
                      {p}
                    </option>
                  ))}
                </select>
              </FormField>
              {num("Concurrency", "concurrency", "concurrency", {
                step: "1",
                placeholder: String(d.concurrency),
                hint: "requests one instance serves at once",
              })}
              {num("Min instances", "minInstances", "minInstances", { step: "1", placeholder: "0", hint: "0 = scale to zero" })}
              {num("Max instances", "maxInstances", "maxInstances", { step: "1", placeholder: String(d.maxInstances) })}
              {num("Idle timeout (ms)", "idleTimeoutMs", "idleTimeoutMs", {
                step: "1",
                placeholder: String(d.idleTimeoutMs),
                hint: "then the instance stops",
              })}
              {num("Queue timeout (ms)", "queueTimeoutMs", "queueTimeoutMs", {
                step: "1",
                placeholder: String(d.queueTimeoutMs),
                hint: "then 429",
              })}
              {num("Max queue", "maxQueue", "maxQueue", { step: "1", placeholder: "1000" })}
              {num("Start timeout (ms)", "startTimeoutMs", "startTimeoutMs", { step: "1", placeholder: "10000" })}
            </Section>
            <Section title="Billing and limits">
              {pick("Billing mode", "billingMode", "billing.mode", ["per-request", "per-instance"], `${d.billing.mode} (platform)`)}
              {num("Billing granularity (ms)", "granularityMs", "billing.granularityMs", {
                step: "1",
                placeholder: String(d.billing.granularityMs),
              })}
              {num("Billed minimum (ms)", "minimumMs", "billing.minimumMs", { step: "1", placeholder: String(d.billing.minimumMs) })}
              {num("CPU limit (cores)", "cpuLimit", "resources.cpuLimit", { placeholder: "none" })}
              {num("Memory limit (MiB)", "memoryLimitMb", "resources.memoryLimitMb", { step: "1", placeholder: "none" })}
            </Section>
          </>
        )}

        <div className="flex items-center gap-3 border-t border-zinc-100 pt-3">
          <button type="submit" data-testid="target-save" className={buttonPrimary} disabled={busy}>
            {busy ? "Saving…" : "Save target"}
          </button>
          <span className="text-[11px] text-zinc-500">A target with the same name is replaced.</span>
        </div>
      </div>

      <aside className="min-w-0 space-y-3">
        <section className="rounded-md border border-zinc-200 bg-white p-3">
          <h3 className="text-xs font-medium text-zinc-700">As it will run</h3>
          {effective ? (
            <ul data-testid="target-effective" className="mt-1 list-disc space-y-0.5 pl-4 text-[11px] text-zinc-600">
              {effective.map((l) => (
                <li key={l}>{l}</li>
              ))}
            </ul>
          ) : (
            <p className="mt-1 text-[11px] text-zinc-400">Not valid yet; saving shows what is wrong next to each field.</p>
          )}
        </section>
        <details className="rounded-md border border-zinc-200 bg-white">
          <summary className="cursor-pointer px-3 py-1.5 text-xs text-zinc-600">The spec that will be saved (JSON)</summary>
          <pre className="max-h-80 overflow-auto border-t border-zinc-100 px-3 py-2 font-mono text-[11px] leading-4 text-zinc-700">
            {JSON.stringify({ name, kind, spec }, null, 2)}
          </pre>
        </details>
      </aside>
    </form>
  );
}
