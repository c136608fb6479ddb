// App-level checks a benchapp declares in its benchapp.json, run against the
// deployment after the load: `"consistencyCheck": "/admin/consistency"` answers
// `{ ok, violations }` (study 004 had no such check; opsbench adds one).
import type { AppCheck, Deployment, ProviderContext } from "../provider";
import { readManifest } from "./manifest";

export async function benchappChecks(app: string, dep: Deployment<unknown>, ctx: ProviderContext): Promise<AppCheck[]> {
  const { manifest } = readManifest(ctx.benchappsDir, app);
  const path = (manifest as { consistencyCheck?: unknown }).consistencyCheck;
  if (typeof path !== "string") return [];
  try {
    const res = await fetch(`${dep.endpoint}${path}`, { signal: AbortSignal.timeout(30_000) });
    const body = (await res.json()) as { ok?: unknown; violations?: unknown[] };
    const violations = Array.isArray(body.violations) ? body.violations : [];
    const ok = res.ok && body.ok === true;
    return [
      {
        name: "consistency",
        ok,
        message: ok ? "consistent" : `${violations.length} violation(s)${res.ok ? "" : ` (HTTP ${res.status})`}`,
        detail: { violations: violations.slice(0, 20) },
      },
    ];
  } catch (err) {
    return [{ name: "consistency", ok: false, message: `the check at ${path} could not be read: ${(err as Error).message}` }];
  }
}
