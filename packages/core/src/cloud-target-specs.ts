// The cloud target kinds (docs/cloud-targets.md): an EC2 Auto Scaling group behind an
// ALB, a Lambda function with a function URL, a Cloud Run service. Each names a
// workspace credential (never the secret itself) and may give the URL the load goes
// to instead of the platform's own address (a DNS name in front of it, or in the
// tests a local stand-in of the app).
import { z } from "zod";
import { costModelDocument } from "./cost/run-cost";
import { credentialName } from "./credentials";

export const cloudRegion = z
  .string()
  .regex(/^[a-z]{2,}(-[a-z]+)+-?\d*$/, "a region such as us-east-1 or europe-west1")
  .max(32);

/** How long to keep fetching platform metrics after the load: they arrive with a delay (CloudWatch ~1-3 min, Cloud Monitoring ~3 min). */
export const platformMetricsSettings = z
  .object({
    /** A period counts as complete this long after it ended (the platform's reporting delay). Default 60. */
    settleSeconds: z.number().int().min(0).max(900).optional(),
    /** Give up waiting for the window's last periods this long after the load (the points so far are kept). Default 300. */
    waitSeconds: z.number().int().min(0).max(1800).optional(),
    /** How often to ask again. Default 20. */
    pollSeconds: z.number().int().min(1).max(300).optional(),
  })
  .strict();
export type PlatformMetricsSettings = z.infer<typeof platformMetricsSettings>;

const common = {
  credential: credentialName,
  /** Send the load here instead of the platform's own address (http(s) URL). */
  endpointUrl: z.url({ protocol: /^https?$/ }).optional(),
  metrics: platformMetricsSettings.optional(),
  /** What this deployment costs (docs/cost.md); priced from what the platform reports when it reports it. */
  costModel: costModelDocument.optional(),
};

export const awsAsgSpec = z
  .object({
    ...common,
    region: cloudRegion,
    /** The AMI the instances boot (it must serve the app on `port`). */
    imageId: z.string().regex(/^ami-[0-9a-f]{8,17}$/, "an AMI id such as ami-0123456789abcdef0"),
    instanceType: z.string().min(3).max(32).default("t3.micro"),
    /** Script the instances run at boot (cloud-init user data), plain text. */
    userData: z.string().max(16_000).optional(),
    port: z.number().int().min(1).max(65_535).default(80),
    healthCheckPath: z.string().startsWith("/").max(256).default("/"),
    minSize: z.number().int().min(0).max(100).default(1),
    maxSize: z.number().int().min(1).max(100).default(4),
    /** Target tracking on average CPU (the study's 70%). */
    targetCpuPercent: z.number().min(1).max(100).default(70),
    /** Seconds a new instance gets before its metrics count (EstimatedInstanceWarmup). */
    warmupSeconds: z.number().int().min(0).max(3600).default(120),
    /** Subnets of the group and the ALB; default: the default VPC's. */
    subnetIds: z
      .array(z.string().regex(/^subnet-[0-9a-f]+$/))
      .min(1)
      .max(16)
      .optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.minSize > s.maxSize)
      ctx.addIssue({ code: "custom", path: ["minSize"], message: `minSize (${s.minSize}) is above maxSize (${s.maxSize})` });
  });
export type AwsAsgSpec = z.infer<typeof awsAsgSpec>;

/** The Lambda functions opsbench can package from benchapps/ (zip of the handler file). */
export const LAMBDA_APPS = ["echo/lambda"] as const;

export const awsLambdaSpec = z
  .object({
    ...common,
    region: cloudRegion,
    app: z.enum(LAMBDA_APPS).default("echo/lambda"),
    runtime: z.enum(["nodejs20.x", "nodejs22.x"]).default("nodejs22.x"),
    memoryMb: z.number().int().min(128).max(10_240).default(128),
    timeoutSeconds: z.number().int().min(1).max(900).default(3),
    /** Reserved concurrency (a cap on instances); none: the account's pool. */
    reservedConcurrency: z.number().int().min(0).max(10_000).optional(),
    /** The execution role (Lambda needs one); its ARN. */
    roleArn: z.string().regex(/^arn:aws:iam::\d{12}:role\/[\w+=,.@/-]+$/, "an IAM role ARN"),
  })
  .strict();
export type AwsLambdaSpec = z.infer<typeof awsLambdaSpec>;

export const gcpCloudRunSpec = z
  .object({
    ...common,
    region: cloudRegion,
    /** Default: the credential's project. */
    projectId: z
      .string()
      .regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, "a project id")
      .optional(),
    image: z.string().min(3).max(512),
    port: z.number().int().min(1).max(65_535).default(8080),
    /** Requests one instance serves at once (Cloud Run default 80, the study 100). */
    concurrency: z.number().int().min(1).max(1000).default(80),
    minInstances: z.number().int().min(0).max(1000).default(0),
    maxInstances: z.number().int().min(1).max(1000).default(100),
    /** vCPUs per instance ("1", "2", or "0.5"-style fractions). */
    cpu: z
      .string()
      .regex(/^(\d+(\.\d+)?|\d+m)$/, 'a CPU count such as "1" or "500m"')
      .default("1"),
    memoryMb: z.number().int().min(128).max(32_768).default(512),
    /** CPU only while a request is served (Cloud Run's default, request-based billing); false: always allocated. */
    cpuThrottling: z.boolean().default(true),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.minInstances > s.maxInstances)
      ctx.addIssue({
        code: "custom",
        path: ["minInstances"],
        message: `minInstances (${s.minInstances}) is above maxInstances (${s.maxInstances})`,
      });
  });
export type GcpCloudRunSpec = z.infer<typeof gcpCloudRunSpec>;

/** Cloud resource names for a run: short, lower-case, unique per run. */
export const cloudResourceName = (runId: string) => `opsbench-${runId.replace(/-/g, "").slice(0, 12).toLowerCase()}`;

/** The tag every AWS resource of a run carries; teardown and the reaper find resources by it. */
export const RUN_TAG_KEY = "opsbench:run";
