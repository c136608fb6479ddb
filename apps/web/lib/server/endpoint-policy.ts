// The host policy judged when a target is saved (core load-hosts/save-time-refusal.ts), with the policy this server
// reads (the same settings as the worker's) and opsbench's own ports it knows: its Postgres and Redis.
import { protectedPortOf, refusalAtSave, typedEndpointField } from "@opsbench/core";
import { ApiError } from "@/lib/api/errors";
import { env } from "@/lib/env";

/** Throws a 422 naming the rule next to the spec's address field when the policy refuses it whatever a run finds. */
export function refuseEndpointAtSave(spec: unknown): void {
  const typed = typedEndpointField(spec);
  if (!typed) return;
  const protectedPorts = [protectedPortOf(env.DATABASE_URL, "Postgres"), protectedPortOf(env.REDIS_URL, "Redis")].filter((p) => p !== null);
  const refusal = refusalAtSave(typed.url, {
    allowlist: env.OPSBENCH_LOAD_ALLOWED_HOSTS,
    privateRanges: env.OPSBENCH_LOAD_PRIVATE_RANGES,
    protectedPorts,
  });
  if (refusal) throw new ApiError("invalid_input", refusal, [{ path: `spec.${typed.path}`, message: refusal }]);
}
