// The "Build" tab's boxes (a kind and its fields, as text) and the spec they make; empty boxes are left out (defaults apply).
import { numberOrUndefined as n } from "@/components/form-field";
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
