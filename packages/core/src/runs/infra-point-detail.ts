// What a provider records beside replicas and CPU each second (infra_points.detail);
// fields: docs/local-engine.md. Every field is optional and read leniently: a point
// written by an older provider, or another kind, must never break a page.
import { z } from "zod";

const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const count = lenient(z.number().nullable());
const counts = lenient(z.array(z.number().nullable().catch(null)));

export const scalingEventSchema = z.looseObject({ from: z.number(), to: z.number(), reason: z.string().catch("") });
export type ScalingEvent = z.infer<typeof scalingEventSchema>;

export const infraPointDetailSchema = z.looseObject({
  /** The target kind that wrote the point ("local-service", "local-function"). */
  kind: lenient(z.string()),
  // local-service
  desired: count,
  perReplicaCpu: counts,
  replicaIds: lenient(z.array(z.union([z.number(), z.string()]))),
  /** Autoscaler changes since the previous point. */
  scalingEvents: lenient(z.array(z.unknown()).transform((events) => events.flatMap((e) => scalingEventSchema.safeParse(e).data ?? []))),
  // local-service and local-function
  starting: count,
  // local-function
  ready: count,
  perInstanceCpu: counts,
  coldStarts: count,
  coldStartMs: counts,
  queued: count,
  queuedPeak: count,
  inFlight: count,
  queueTimeouts: count,
  rejected: count,
  billedMs: count,
  // kubernetes (ready and desired above are the Deployment's)
  /** The HPA's measured and target average CPU utilisation, in % of requests (null until metrics arrive). */
  hpaCurrentCpuPercent: count,
  hpaTargetCpuPercent: count,
  /** Container restarts summed over the run's pods. */
  restarts: count,
  /** Nodes in the cluster. */
  nodes: count,
  // cloud kinds (aws-asg, aws-lambda, gcp-cloud-run): one point per platform period
  /** Seconds the point stands for (60 for CloudWatch and Cloud Monitoring minutes); absent = one second. */
  resolutionSeconds: count,
  /** The platform's own metrics for the period, by name (docs/cloud-targets.md). */
  platform: lenient(z.record(z.string(), z.number().nullable().catch(null))),
  /** Running totals since the deployment started (the platform's own meter). */
  totals: lenient(
    z.looseObject({
      billedMs: count,
      coldStarts: count,
      requests: count,
      queueTimeouts: count,
      instanceSeconds: count,
      gbSeconds: count,
      /** aws-asg: the ALB's capacity units so far (CloudWatch ConsumedLCUs, per minute, summed as LCU-hours). */
      lcuHours: count,
    }),
  ),
});
export type InfraPointDetail = z.infer<typeof infraPointDetailSchema>;

/** A stored detail, or {} for anything that is not an object. */
export const readInfraPointDetail = (json: unknown): InfraPointDetail => infraPointDetailSchema.safeParse(json).data ?? {};
