// Nothing left running: every few minutes (OPSBENCH_REAPER_SECONDS; a tick of the installation's "reap" job
// scheduler, taken by one worker: maintenance.ts), each provider that can list what it left on a
// platform (Provider.reaper: namespaces labelled opsbench-run, tagged cloud resources) is asked, with every
// workspace credential of its kind, which runs have resources there; those of runs that are final in that
// workspace are deleted. Runs this installation does not know (another opsbench on the same cluster) are left
// alone. Local processes have their own reconciler.
import { type LoadHostAllowlist, type ProtectedPort, platformCredentialKind } from "@opsbench/core";
import type { Db } from "@opsbench/db";
import { finalRunIds, openCredentialsOfKind } from "@opsbench/db";
import { type Provider, type ProviderEndpoints, providers } from "@opsbench/providers";
import type { Logger } from "./logger";

export interface ReaperDeps {
  db: Db;
  log: Logger;
  secretKey: string | undefined;
  endpoints?: ProviderEndpoints;
  /** OPSBENCH_LOAD_ALLOWED_HOSTS: a kubeconfig's server must pass it here too. */
  loadHosts?: LoadHostAllowlist;
  protectedPorts?: readonly ProtectedPort[];
}

/** One pass over every reaping provider and credential; answers what it deleted, by "<workspace>/<credential>". */
export async function reapOnce(
  deps: ReaperDeps,
  kinds: Provider[] = Object.values(providers()),
): Promise<{ deleted: string[]; failed: string[] }> {
  const deleted: string[] = [];
  const failed: string[] = [];
  for (const provider of kinds) {
    const reaper = provider.reaper;
    // The platform is reached with the credential kind the target kind takes (core kinds/).
    const credentialKind = platformCredentialKind(provider.kind);
    if (!reaper || !credentialKind) continue;
    const { opened, unreadable } = await openCredentialsOfKind(deps.db, credentialKind, deps.secretKey);
    if (unreadable.length > 0)
      deps.log.warn({ kind: provider.kind, credentials: unreadable }, "reaper: credentials that do not open were skipped");
    for (const c of opened) {
      const ctx = {
        credential: c.secret,
        endpoints: deps.endpoints,
        loadHosts: deps.loadHosts,
        protectedPorts: deps.protectedPorts,
        signal: AbortSignal.timeout(120_000),
        log: (msg: string, data?: Record<string, unknown>) => deps.log.info({ ...data, credential: c.name }, msg),
      };
      try {
        const runIds = await reaper.listRuns(ctx);
        for (const runId of await finalRunIds(deps.db, c.workspaceId, runIds)) {
          try {
            await reaper.deleteRun(runId, ctx);
            deleted.push(runId);
            deps.log.info({ kind: provider.kind, runId, credential: c.name }, "reaper: deleted the resources of a finished run");
          } catch (err) {
            failed.push(runId);
            deps.log.warn({ kind: provider.kind, runId, credential: c.name, error: (err as Error).message }, "reaper: could not delete");
          }
        }
      } catch (err) {
        deps.log.warn({ kind: provider.kind, credential: c.name, error: (err as Error).message }, "reaper: could not list");
      }
    }
  }
  return { deleted, failed };
}
