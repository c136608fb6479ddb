// The host policy judged when a target is saved (core load-hosts/save-time-refusal.ts), with the policy this server
// reads (the same settings as the worker's) and opsbench's own ports it knows: its Postgres and Redis.
import { type OutboundKind, outboundRefusalAtSave, protectedPortOf, refusalAtSave, typedEndpointField } from "@opsbench/core";
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

/**
 * Throws a 422 at `path` when the egress rule refuses a webhook URL or an SMTP server as typed (core
 * load-hosts/outbound-hosts.ts): the same policy as a load target's, with this web app's own address protected too.
 * A name is judged again by the worker on each send, on the address it resolves to.
 */
export function refuseOutboundAtSave(kind: OutboundKind, url: string, path: string, request: Request): void {
  const refusal = outboundRefusal(kind, url, request.url);
  if (refusal) throw new ApiError("invalid_input", `${path}: ${refusal}`, [{ path, message: refusal }]);
}

/** The refusal itself, or null; `selfUrl`: an address of this web app (a request's), protected like Postgres and Redis. */
export function outboundRefusal(kind: OutboundKind, url: string, selfUrl: string | null): string | null {
  const protectedPorts = [
    protectedPortOf(env.DATABASE_URL, "Postgres"),
    protectedPortOf(env.REDIS_URL, "Redis"),
    selfUrl ? protectedPortOf(selfUrl, "the web app") : null,
  ].filter((p) => p !== null);
  return outboundRefusalAtSave(kind, url, {
    allowlist: env.OPSBENCH_LOAD_ALLOWED_HOSTS,
    privateRanges: env.OPSBENCH_LOAD_PRIVATE_RANGES,
    protectedPorts,
  });
}
