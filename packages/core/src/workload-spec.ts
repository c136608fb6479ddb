import { z } from "zod";

/** k6 duration strings such as "30s", "1m30s", "500ms". */
export const k6Duration = z
  .string()
  .regex(/^(\d+(\.\d+)?(ms|s|m|h))+$/, 'a duration like "30s", "2m" or "1m30s"');

export const requestSpec = z
  .object({
    name: z.string().min(1).max(100),
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]).default("GET"),
    /** Path and query, appended to the target's base URL. */
    path: z.string().startsWith("/"),
    body: z.string().optional(),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .strict();

export const stage = z.object({ duration: k6Duration, target: z.number().int().min(0).max(100_000) }).strict();

export const rampingVusWorkload = z
  .object({
    kind: z.literal("ramping-vus"),
    startVUs: z.number().int().min(0).max(100_000).default(0),
    stages: z.array(stage).min(1),
    gracefulRampDown: k6Duration.default("10s"),
    /** Request timeout; study 000 used one minute. */
    requestTimeout: k6Duration.default("60s"),
    requests: z.array(requestSpec).min(1),
    /** k6 thresholds, e.g. { "http_req_duration": ["p(95)<500"] }. */
    thresholds: z.record(z.string(), z.array(z.string().min(1))).default({}),
  })
  .strict();

export const workloadSpec = z.discriminatedUnion("kind", [rampingVusWorkload]);
export type WorkloadSpec = z.infer<typeof workloadSpec>;

export const workloadInput = z
  .object({
    name: z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9._-]*$/, "use lower-case letters, digits, '.', '_' or '-'"),
    spec: workloadSpec,
  })
  .strict();
export type WorkloadInput = z.infer<typeof workloadInput>;

/** Seconds the workload's stages add up to (without graceful ramp-down). */
export function plannedSeconds(spec: WorkloadSpec): number {
  return spec.stages.reduce((sum, s) => sum + durationSeconds(s.duration), 0);
}

export function durationSeconds(d: string): number {
  const unit: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of d.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * unit[m[2]!]!;
  return total;
}
