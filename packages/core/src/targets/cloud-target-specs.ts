// The cloud target kinds (docs/cloud-targets.md): an EC2 Auto Scaling group behind an
// ALB, a Lambda function with a function URL, a Cloud Run service. Each names a
// workspace credential (never the secret itself) and may give the URL the load goes
// to instead of the platform's own address (a DNS name in front of it, or in the
// tests a local stand-in of the app).
import { z } from "zod";
import { costModelDocument } from "../cost/run-cost";
import { credentialName } from "./credentials";
import { targetEnv, targetEnvNameProblem } from "./target-env";

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

/** A public container image reference: [registry/]name[:tag][@sha256:digest]. */
const containerImage = z
  .string()
  .max(512)
  .regex(
    /^[a-z0-9]+([._-][a-z0-9]+)*(:\d+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)*(:[\w][\w.-]{0,127})?(@sha256:[0-9a-f]{64})?$/,
    "a container image such as nginx:1.27 or ghcr.io/you/app:1",
  );

/** The container an aws-asg instance runs (docs/cloud-targets.md#your-own-app-on-every-kind). */
export const asgContainer = z
  .object({
    image: containerImage,
    /** The port the container listens on (default: the spec's port); the instance's `port` is published to it. */
    port: z.number().int().min(1).max(65_535).optional(),
    /** Given to the container (safe names only; a value may not hold a line break: it goes in an env file). */
    env: targetEnv.default({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    for (const [name, value] of Object.entries(c.env))
      if (/[\r\n]/.test(value)) ctx.addIssue({ code: "custom", path: ["env", name], message: "a value cannot contain a line break" });
  });
export type AsgContainer = z.infer<typeof asgContainer>;

export const awsAsgSpec = z
  .object({
    ...common,
    region: cloudRegion,
    /**
     * The AMI the instances boot (it must serve the app on `port`, or run `container`). Default: the region's newest
     * Amazon Linux 2023 image for the instance type's architecture (DescribeImages, owner amazon).
     */
    imageId: z
      .string()
      .regex(/^ami-[0-9a-f]{8,17}$/, "an AMI id such as ami-0123456789abcdef0")
      .optional(),
    instanceType: z.string().min(3).max(32).default("t3.micro"),
    /** Script the instances run at boot (cloud-init user data), plain text. Give this or `container`. */
    userData: z.string().max(16_000).optional(),
    /** A container image the instances run: opsbench renders the user data that installs Docker and starts it. */
    container: asgContainer.optional(),
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
    if (s.container && s.userData !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["userData"],
        message: "give either userData (your boot script) or container (opsbench renders the boot script), not both",
      });
  });
export type AwsAsgSpec = z.infer<typeof awsAsgSpec>;

/** The Lambda functions opsbench can package from benchapps/ (zip of the handler file). */
export const LAMBDA_APPS = ["echo/lambda"] as const;

/** A zip in a target spec: its base64 fits the API's 2 MiB request body; a larger package is an S3 object (`code.s3Bucket`). */
export const LAMBDA_MAX_INLINE_ZIP_BYTES = 1024 * 1024;

/** The user's own deployment package: a zip uploaded with the spec, or an S3 object in the function's region. */
export const lambdaCode = z.union([
  z
    .object({
      /** The zip, base64-encoded (at most 1 MiB decoded: the spec travels in the API's body and is stored with every run). */
      zipBase64: z
        .string()
        .max(Math.ceil(LAMBDA_MAX_INLINE_ZIP_BYTES / 3) * 4)
        .regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64 (A-Z, a-z, 0-9, +, /)")
        .refine(
          (b64) =>
            Buffer.from(b64.slice(0, 8), "base64")
              .subarray(0, 4)
              .equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])),
          "not a zip file (it does not start with PK\\3\\4)",
        ),
    })
    .strict(),
  z
    .object({
      s3Bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "an S3 bucket name"),
      s3Key: z.string().min(1).max(1024),
      s3ObjectVersion: z.string().min(1).max(1024).optional(),
    })
    .strict(),
]);
export type LambdaCode = z.infer<typeof lambdaCode>;

export const awsLambdaSpec = z
  .object({
    ...common,
    region: cloudRegion,
    /** A benchapp opsbench zips (default echo/lambda when there is no `code`). */
    app: z.enum(LAMBDA_APPS).optional(),
    /** Your own package instead of a benchapp. */
    code: lambdaCode.optional(),
    /** The handler in the package (default index.handler). */
    handler: z
      .string()
      .regex(/^[\w./:$-]{1,128}$/, "a handler such as index.handler")
      .optional(),
    runtime: z.enum(["nodejs20.x", "nodejs22.x", "python3.12", "python3.13", "java21", "provided.al2023"]).default("nodejs22.x"),
    memoryMb: z.number().int().min(128).max(10_240).default(128),
    timeoutSeconds: z.number().int().min(1).max(900).default(3),
    /** Reserved concurrency (a cap on instances); none: the account's pool. */
    reservedConcurrency: z.number().int().min(0).max(10_000).optional(),
    /** The execution role (Lambda needs one); its ARN. */
    roleArn: z.string().regex(/^arn:aws:iam::\d{12}:role\/[\w+=,.@/-]+$/, "an IAM role ARN"),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.app !== undefined && s.code !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["code"],
        message: "give either app (a benchapp opsbench zips) or code (your package), not both",
      });
  });
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
    /** Given to the container (safe names only; values hidden by the API as every target's env). */
    env: targetEnv.default({}),
    /**
     * Variables read from Secret Manager when an instance starts (the service account of the service must be allowed to
     * access them): NAME -> `{ "secret": "iot-database-url" | "projects/p/secrets/s", "version": "latest" }`.
     * Only the reference is stored, never the secret's value.
     */
    secrets: z
      .record(
        z.string(),
        z
          .object({
            secret: z
              .string()
              .regex(
                /^([a-zA-Z0-9_-]{1,255}|projects\/[a-z0-9-]{4,63}\/secrets\/[a-zA-Z0-9_-]{1,255})$/,
                "a Secret Manager secret: its name, or projects/<project>/secrets/<name>",
              ),
            version: z
              .string()
              .regex(/^(latest|[1-9]\d{0,9})$/, 'a version number or "latest"')
              .default("latest"),
          })
          .strict(),
      )
      .default({}),
  })
  .strict()
  .superRefine((s, ctx) => {
    for (const name of Object.keys(s.secrets)) {
      const problem = targetEnvNameProblem(name);
      if (problem) ctx.addIssue({ code: "custom", path: ["secrets", name], message: problem });
      else if (s.env[name] !== undefined)
        ctx.addIssue({ code: "custom", path: ["secrets", name], message: `${name} is in env too: give it in one of env and secrets` });
    }
    if (Object.keys(s.env).length + Object.keys(s.secrets).length > 64)
      ctx.addIssue({ code: "custom", path: ["secrets"], message: "at most 64 variables in env and secrets together" });
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
