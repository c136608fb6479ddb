// gcp-cloud-run: a Cloud Run service (image, concurrency, min/max instances, CPU,
// memory, CPU throttling) through the Cloud Run Admin API v2, labelled
// opsbench-run=<id>; teardown deletes by label. Metrics from Cloud Monitoring at 60 s.
import { cloudResourceName, gcpCloudRunSpec, type GcpCloudRunSpec } from "@opsbench/core";
import { cloudEndpoint } from "../cloud/cloud-endpoint";
import { observeCloud } from "../cloud/observe-cloud";
import { ProviderError, type Deployment, type KindProvider, type ProviderContext, type ReaperContext } from "../provider";
import { gcpClients, gcpCredentialOf, gcpErrorMessage } from "./clients";
import { checkGcpCredential } from "./check-credential";
import { monitoringPeriods, PERIOD_SECONDS } from "./monitoring-periods";

/** GCP label keys take no ':' (AWS's opsbench:run); values are the run id. */
export const RUN_LABEL = "opsbench-run";

export interface GcpCloudRunState {
  credential: string;
  project: string;
  region: string;
  serviceName?: string;
  uri?: string;
  cpu?: string;
  memoryMb?: number;
  metrics?: GcpCloudRunSpec["metrics"];
}

const parentOf = (s: Pick<GcpCloudRunState, "project" | "region">) => `projects/${s.project}/locations/${s.region}`;
const clientsFor = (ctx: ProviderContext, state: Pick<GcpCloudRunState, "credential">) =>
  gcpClients(gcpCredentialOf(ctx, state.credential), state.credential, ctx.endpoints?.gcp);

async function deploy(spec: GcpCloudRunSpec, ctx: ProviderContext): Promise<Deployment<GcpCloudRunState>> {
  const secret = gcpCredentialOf(ctx, spec.credential);
  const state: GcpCloudRunState = {
    credential: spec.credential,
    project: spec.projectId ?? secret.projectId,
    region: spec.region,
    cpu: spec.cpu,
    memoryMb: spec.memoryMb,
    metrics: spec.metrics,
  };
  // Refused credentials fail here, before anything is created.
  await checkGcpCredential(secret, {
    name: spec.credential,
    endpoint: ctx.endpoints?.gcp,
    region: spec.region,
    projectId: state.project,
  });
  await ctx.saveState(state);
  const name = cloudResourceName(ctx.runId);
  const { run, close } = clientsFor(ctx, state);
  try {
    state.serviceName = `${parentOf(state)}/services/${name}`;
    await ctx.saveState(state);
    const labels = { [RUN_LABEL]: ctx.runId };
    const [operation] = await run.createService({
      parent: parentOf(state),
      serviceId: name,
      service: {
        labels,
        ingress: "INGRESS_TRAFFIC_ALL",
        template: {
          labels,
          scaling: { minInstanceCount: spec.minInstances, maxInstanceCount: spec.maxInstances },
          maxInstanceRequestConcurrency: spec.concurrency,
          containers: [
            {
              image: spec.image,
              ports: [{ containerPort: spec.port }],
              env: containerEnv(spec),
              // cpuIdle: CPU only while serving requests (throttled between them), billed per request time.
              resources: { limits: { cpu: spec.cpu, memory: `${spec.memoryMb}Mi` }, cpuIdle: spec.cpuThrottling },
            },
          ],
        },
      },
    });
    const [service] = await operation.promise();
    state.uri = service.uri ?? undefined;
    await ctx.saveState(state);
    await ctx.event?.(
      "info",
      `Cloud Run service ${name} created (${spec.cpu} vCPU, ${spec.memoryMb} MiB, concurrency ${spec.concurrency}, ${spec.minInstances}-${spec.maxInstances} instances${Object.keys(spec.secrets).length ? `, secrets ${Object.keys(spec.secrets).join(", ")}` : ""})`,
    );
    return { endpoint: spec.endpointUrl ?? state.uri ?? "", state };
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    throw new ProviderError(`creating the Cloud Run service failed: ${gcpErrorMessage(err)}`);
  } finally {
    await close();
  }
}

/** The container's variables: plain values, then Secret Manager references (resolved by Cloud Run when an instance starts). */
export function containerEnv(spec: GcpCloudRunSpec) {
  return [
    ...Object.entries(spec.env).map(([name, value]) => ({ name, value })),
    ...Object.entries(spec.secrets).map(([name, ref]) => ({
      name,
      valueSource: { secretKeyRef: { secret: ref.secret, version: ref.version } },
    })),
  ];
}

/** The service must be ready (its latest revision serving, nothing reconciling). */
async function reset(dep: Deployment<GcpCloudRunState>, ctx: ProviderContext, timeoutMs = 300_000): Promise<void> {
  const { run, close } = clientsFor(ctx, dep.state);
  try {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const [s] = await run.getService({ name: dep.state.serviceName });
      const state = s.terminalCondition?.state;
      if (!s.reconciling && (state === "CONDITION_SUCCEEDED" || state === 2)) return;
      if (state === "CONDITION_FAILED" || state === 3)
        throw new ProviderError(`the Cloud Run service is not ready: ${s.terminalCondition?.message ?? "no reason given"}`);
      if (Date.now() > until || ctx.signal.aborted)
        throw new ProviderError(`the Cloud Run service is not ready after ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  } finally {
    await close();
  }
}

function observe(dep: Deployment<GcpCloudRunState>, window: { signal: AbortSignal }, ctx: ProviderContext) {
  const { state } = dep;
  return observeCloud(
    {
      kind: "gcp-cloud-run",
      periodSeconds: PERIOD_SECONDS,
      primary: "requests",
      totals: ["billedMs", "requests"],
      open: async () => {
        const { monitoring, close } = clientsFor(ctx, state);
        const short = (state.serviceName ?? "").split("/").at(-1) ?? "";
        return { fetch: monitoringPeriods(monitoring, state.project, short).fetch, close };
      },
      point: (v) => ({
        replicas: Math.round((v.instancesActive ?? 0) + (v.instancesIdle ?? 0)),
        cpuPercent: v.cpuUtilization == null ? null : v.cpuUtilization * 100,
        // Billable instance time is what Cloud Run charges vCPU- and GiB-seconds for.
        add: { billedMs: v.billableInstanceSeconds == null ? null : v.billableInstanceSeconds * 1000, requests: v.requests },
      }),
    },
    window,
    state.metrics,
    ctx.log,
  );
}

type RunClient = ReturnType<typeof gcpClients>["run"];

/** Every labelled service in the region, as [service name, run id]. */
async function labelledServices(run: RunClient, at: Pick<GcpCloudRunState, "project" | "region">): Promise<Array<[string, string]>> {
  const [services] = await run.listServices({ parent: parentOf(at) });
  return services.flatMap((s) => (s.name && s.labels?.[RUN_LABEL] ? [[s.name, s.labels[RUN_LABEL]] as [string, string]] : []));
}

/** Deletes the run's services: labelled with its id (listed in the region), plus the recorded name; waits for each. */
async function deleteRunServices(
  run: RunClient,
  at: Pick<GcpCloudRunState, "project" | "region">,
  runId: string,
  recorded?: string,
): Promise<string[]> {
  const names = new Set((await labelledServices(run, at)).filter(([, id]) => id === runId).map(([name]) => name));
  if (recorded) names.add(recorded);
  for (const name of names) {
    try {
      const [op] = await run.deleteService({ name });
      await op.promise();
    } catch (err) {
      // 5 = NOT_FOUND: already gone.
      if ((err as { code?: unknown }).code !== 5) throw err;
    }
  }
  return [...names];
}

async function teardown(dep: { state: Partial<GcpCloudRunState> }, ctx: ProviderContext): Promise<void> {
  const { state } = dep;
  if (!state.credential || !state.project || !state.region) return;
  const { run, close } = clientsFor(ctx, { credential: state.credential });
  try {
    const at = { project: state.project, region: state.region };
    ctx.log("gcp-cloud-run services deleted", { services: await deleteRunServices(run, at, ctx.runId, state.serviceName) });
  } finally {
    await close();
  }
}

/** The reaper's clients: the credential's own project and region (services elsewhere are not listed). */
async function withReaperRun<T>(ctx: ReaperContext, fn: (run: RunClient, at: { project: string; region: string }) => Promise<T>) {
  const c = ctx.credential;
  if (c.kind !== "gcp") throw new ProviderError(`the reaper got a ${c.kind} credential, not a Google Cloud one`);
  const { run, close } = gcpClients(c, "reaper", ctx.endpoints?.gcp);
  try {
    return await fn(run, { project: c.projectId, region: c.region });
  } finally {
    await close();
  }
}

export const gcpCloudRun: KindProvider<"gcp-cloud-run", GcpCloudRunState> = {
  kind: "gcp-cloud-run",
  spec: gcpCloudRunSpec,
  deploy,
  reset,
  observe,
  teardown,
  ...cloudEndpoint,
  reaper: {
    listRuns: (ctx) => withReaperRun(ctx, async (run, at) => [...new Set((await labelledServices(run, at)).map(([, id]) => id))]),
    deleteRun: (runId, ctx) => withReaperRun(ctx, async (run, at) => void (await deleteRunServices(run, at, runId))),
  },
};
