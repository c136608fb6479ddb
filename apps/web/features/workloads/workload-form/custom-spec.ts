// The "Build" tab's boxes (a kind and its fields, as text) and the spec they make; empty boxes are left out (defaults apply).
import { numberOrUndefined as n } from "@/components/form-field";
import type { GeneratedWorkloadSpec } from "@opsbench/core";
import type { FormErrors } from "@/lib/api/form-errors";

export const CUSTOM_KINDS = ["ramping-vus", "constant-vus", "shared-iterations", "constant-arrival-rate", "ramping-arrival-rate"] as const;
export type CustomKind = (typeof CUSTOM_KINDS)[number];
export const CUSTOM_KIND_LABELS: Record<CustomKind, string> = {
  "ramping-vus": "ramping VUs (closed model, stages)",
  "constant-vus": "constant VUs for a time (Fortio)",
  "shared-iterations": "N requests at C VUs (ab -n -c)",
  "constant-arrival-rate": "constant arrival rate (open model)",
  "ramping-arrival-rate": "ramping arrival rate (open model, stages)",
};

export interface Stage {
  duration: string;
  target: string;
}
export interface Custom {
  kind: CustomKind;
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

/** The props of the "Build" tab's parts: the boxes, a patch to them, and the API's errors. */
export interface CustomFieldsProps {
  custom: Custom;
  onChange: (patch: Partial<Custom>) => void;
  errors: FormErrors;
}
/** The schema's defaults the boxes start with (shown as values marked "default", not as grey placeholders). */
export const CUSTOM_DEFAULTS = { maxDuration: "30m", requestTimeout: "60s", timeUnit: "1s" } as const;

export const DEFAULT_CUSTOM: Custom = {
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
  maxDuration: CUSTOM_DEFAULTS.maxDuration,
  rate: "20",
  startRate: "0",
  timeUnit: "1s",
  preAllocatedVUs: "20",
  maxVUs: "",
  method: "GET",
  path: "/",
  body: "",
  thinkTime: "",
  requestTimeout: CUSTOM_DEFAULTS.requestTimeout,
  p95Below: "",
};

/** "per 1s": the unit an arrival rate is given in. */
export const rateUnit = (c: Custom) => `per ${c.timeUnit.trim() || "1s"}`;

/** A custom kind's fields as a spec; empty boxes are left out (defaults apply). */
export function customSpec(c: Custom): Record<string, unknown> {
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

const text = (v: number | string | undefined) => (v === undefined ? "" : String(v));

/**
 * A saved generated spec in the boxes (edit). What the boxes cannot hold (more requests, pools, a think time range,
 * a measured rate, other thresholds) stays in the saved spec: customSpec lays the boxes over it.
 */
export function customFromSpec(spec: GeneratedWorkloadSpec): Custom {
  const first = spec.requests[0];
  const p95 = spec.thresholds.http_req_duration?.map((t) => /^p\(95\)<(\d+(?:\.\d+)?)$/.exec(t)?.[1]).find(Boolean);
  const c: Custom = {
    ...DEFAULT_CUSTOM,
    kind: spec.kind,
    method: first?.method ?? "GET",
    path: first?.path ?? "/",
    body: first?.body ?? "",
    thinkTime: typeof spec.thinkTime === "string" ? spec.thinkTime : "",
    requestTimeout: spec.requestTimeout,
    p95Below: p95 ?? "",
  };
  switch (spec.kind) {
    case "ramping-vus":
      return { ...c, startVUs: text(spec.startVUs), stages: spec.stages.map((s) => ({ duration: s.duration, target: text(s.target) })) };
    case "constant-vus":
      return { ...c, vus: text(spec.vus), duration: spec.duration };
    case "shared-iterations":
      return { ...c, vus: text(spec.vus), iterations: text(spec.iterations), maxDuration: spec.maxDuration };
    case "constant-arrival-rate":
      return {
        ...c,
        rate: typeof spec.rate === "number" ? text(spec.rate) : "",
        timeUnit: spec.timeUnit,
        duration: spec.duration,
        preAllocatedVUs: text(spec.preAllocatedVUs),
        maxVUs: text(spec.maxVUs),
      };
    case "ramping-arrival-rate":
      return {
        ...c,
        startRate: text(spec.startRate),
        timeUnit: spec.timeUnit,
        stages: spec.stages.map((s) => ({ duration: s.duration, target: text(s.target) })),
        preAllocatedVUs: text(spec.preAllocatedVUs),
        maxVUs: text(spec.maxVUs),
      };
  }
}

/** The keys a box clears when left empty (its default applies), so an edit can remove them from the saved spec. */
const CLEARABLE = ["maxDuration", "maxVUs", "thinkTime", "requestTimeout"] as const;

/**
 * The boxes laid over a saved spec of the same kind (edit): the boxes' values win, a box left empty keeps the saved
 * value unless it is one that clears (CLEARABLE), the first request keeps its name and headers, the other requests
 * and thresholds other than the p95 one are kept.
 */
export function customSpecOver(c: Custom, saved: GeneratedWorkloadSpec | null): Record<string, unknown> {
  const built = customSpec(c);
  if (!saved || saved.kind !== c.kind) return built;
  const kept: Record<string, unknown> = { ...saved };
  for (const k of CLEARABLE) delete kept[k];
  // A think time range has no box: an empty box keeps it.
  if (typeof saved.thinkTime === "object" && c.thinkTime === "") kept.thinkTime = saved.thinkTime;
  const [first, ...rest] = saved.requests;
  const builtRequest = (built.requests as Array<Record<string, unknown>>)[0]!;
  const { http_req_duration: _p95, ...otherThresholds } = saved.thresholds;
  const out: Record<string, unknown> = { ...kept };
  for (const [k, v] of Object.entries(built)) if (v !== undefined) out[k] = v;
  out.requests = [{ ...first, ...builtRequest, name: first?.name ?? "request", ...(c.body ? {} : { body: undefined }) }, ...rest];
  out.thresholds = { ...otherThresholds, ...((built.thresholds as Record<string, string[]> | undefined) ?? {}) };
  return JSON.parse(JSON.stringify(out));
}
