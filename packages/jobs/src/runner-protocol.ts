// The contract between the worker and the runner (apps/runner), the one process of a host
// that executes users' k6 scripts and holds no secret (docs/security.md). HTTP on a unix
// socket only the two share: the worker asks, the runner runs k6 sandboxed and streams back
// what k6's opsbench output writes, one JSON event a line, then k6's result.
import { k6OutputLine, scriptBundleFields, validityFlag } from "@opsbench/core";
import { z } from "zod";

/** POST /inspect: a script and its files (a k6 project or archive), checked with `k6 inspect`. */
export const runnerInspectRequest = z.object({ source: z.string().min(1).max(5_000_000), ...scriptBundleFields }).strict();
export type RunnerInspectRequest = z.infer<typeof runnerInspectRequest>;

/** What `k6 inspect` made of a user's script (the runner answers POST /inspect with it). */
export const scriptValidationResult = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    /** The options k6 derived from the script (`k6 inspect`). */
    options: z.record(z.string(), z.unknown()),
    /** From `k6 inspect --execution-requirements`: the longest the test can take, and its most VUs. */
    totalDurationSeconds: z.number().nullable(),
    maxVUs: z.number().nullable(),
  }),
  /** The script does not parse or its options are invalid; `message` is k6's own. */
  z.object({ ok: z.literal(false), message: z.string() }),
]);
export type ScriptValidationResult = z.infer<typeof scriptValidationResult>;

/** A name for one k6 of the runner: the run id, or "<run id>-segment-<i>" for a load generator's part. */
export const runnerKey = z.string().regex(/^[A-Za-z0-9_-]{1,120}$/, "letters, digits, _ and - only");

export const runnerHealth = z.object({
  /** The load engine's version (opsbench-engine, or an admin's stock k6), e.g. v0.1.0. */
  k6Version: z.string(),
  /** Why k6 cannot be sandboxed on this host, or null when it can. */
  sandboxProblem: z.string().nullable(),
  /** Whether the admin lets k6 run unsandboxed where the sandbox cannot be made (such runs are flagged). */
  allowUnsandboxed: z.boolean(),
  /**
   * Whether k6's sandbox can route to a remote target (its one pinned address and port, docs/security.md "Remote
   * targets"): the sandbox works and the host forwards IPv4. Absent from an older runner: it cannot.
   */
  routedEgress: z.boolean().optional(),
  /** The host this runner loads from: every worker using it shares one load lock. */
  hostId: z.string(),
});
export type RunnerHealth = z.infer<typeof runnerHealth>;

/** The hard stop: k6 is stopped at its planned duration (k6's own, from `k6 inspect`) plus a grace period. */
export const k6Deadline = z.object({
  graceSeconds: z.number().int().min(0),
  /** No run goes past this, whatever it plans. */
  maxSeconds: z.number().int().min(1),
});
export type K6Deadline = z.infer<typeof k6Deadline>;

export const runnerK6Request = z
  .object({
    key: runnerKey,
    script: z.string().min(1).max(5_000_000),
    /** The script's entry path and its other files (a k6 project, or a k6 archive as the entry): written beside it. */
    ...scriptBundleFields,
    /** What the script sees in __ENV (the target's address as OPSBENCH_BASE_URL); nothing else of the worker's. */
    env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/), z.string()),
    deadline: k6Deadline.nullable().default(null),
    /**
     * A remote target's address as the worker resolved and admitted it (its host policy, its proof of ownership):
     * the runner pins this one instead of resolving the name again (judged as one it resolved). Null: it resolves.
     */
    pinnedAddress: z
      .string()
      .regex(/^\d{1,3}(\.\d{1,3}){3}$/, "an IPv4 address")
      .nullable()
      .default(null),
    /** A load generator's part of a run on several: k6's --execution-segment arguments. */
    segment: z
      .object({ index: z.number().int().min(0), count: z.number().int().min(1) })
      .nullable()
      .default(null),
    /** Start paused with k6's REST API inside its network, to be resumed through the runner (POST /k6/<key>/control). */
    paused: z.boolean().default(false),
    /** Also keep k6's raw JSON output (every sample) as <runner work dir>/k6-samples/<name>. */
    keepSamplesAs: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,160}$/)
      .nullable()
      .default(null),
    /** Host names of the worker's backing services (Postgres, Redis): blocked for k6 where an address list can. */
    blockHosts: z.array(z.string().max(255)).max(10).default([]),
    /**
     * The ports of opsbench's own services (Postgres, Redis, the web app and its ingest endpoint, and any the admin
     * adds): a target on one of them is refused before k6 starts, whatever the target says.
     */
    blockPorts: z
      .array(z.object({ host: z.string().min(1).max(255), port: z.number().int().min(1).max(65535), service: z.string().min(1).max(100) }))
      .max(50)
      .default([]),
    /**
     * The run's limits: k6 inspect (with the run's own environment) must be within them before k6 starts, and k6
     * run's own plan (its first output line) within them and within inspect's answer, or k6 is stopped.
     */
    limits: z
      .object({
        maxVUs: z.number().int().min(1),
        maxDurationSeconds: z.number().int().min(1),
        maxArrivalRate: z.number().min(0),
      })
      .nullable()
      .default(null),
  })
  .strict();
export type RunnerK6Request = z.input<typeof runnerK6Request>;

/** What k6 did, as the runner saw it. */
export const k6Result = z.object({
  exitCode: z.number().int(),
  /** k6's own CPU use over the run, as a share of the host's cores (100 = all of them). */
  cpuPercentOfMachine: z.number().nullable(),
  /** k6's own end-of-test summary (--summary-export), if it wrote one. */
  summary: z.unknown().nullable(),
  outputTail: z.string(),
  malformedLines: z.number().int(),
  /** Set when k6 ran without the sandbox (allowed by the admin): the run's flag. */
  unsandboxed: validityFlag.nullable(),
  /** Set when k6 was stopped at its deadline: the reason, for the run's error. */
  deadlineExceeded: z.string().nullable(),
  /** Set when k6 was stopped because what it planned or ran went above the run's limits or inspect's answer. */
  overLimits: z.string().nullable().default(null),
  /** Set when k6 hit one of the runner's resource limits (memory, threads): what happened, for the run's error. */
  resourceLimit: z.string().nullable().default(null),
  /** The files the script's handleSummary() wrote (base64), within the runner's caps (apps/runner/src/script-files.ts). */
  artifacts: z.array(z.object({ name: z.string(), size: z.number().int(), base64: z.string() })).default([]),
  /** Files it wrote that were not kept, and why. */
  dropped: z.array(z.string()).default([]),
});
export type K6Result = z.infer<typeof k6Result>;

/** k6's exit code when thresholds failed (in core: an external run's merged thresholds give it too). */
export { K6_THRESHOLDS_FAILED } from "@opsbench/core";

/** What one k6 made on the runner's host (recorded on the run's LOAD step, for the timeline and the crash tests). */
export const k6Owned = z.object({
  pid: z.number().int().nullable(),
  startTicks: z.number().nullable(),
  network: z.object({ ns: z.string(), table: z.string() }).nullable(),
});
export type K6Owned = z.infer<typeof k6Owned>;

/** The lines of POST /k6's answer, in order: owned and launched early, lines while k6 runs, then result or failure. */
export const runnerEvent = z.discriminatedUnion("e", [
  z.object({ e: z.literal("owned"), owned: k6Owned }),
  /** k6 is about to start (paused, when asked): its network namespace, or null. */
  z.object({ e: z.literal("launched"), netns: z.string().nullable() }),
  z.object({ e: z.literal("line"), line: k6OutputLine }),
  z.object({ e: z.literal("result"), result: k6Result }),
  /** The sandbox cannot be made and unsandboxed runs are not allowed: no k6 was started. */
  z.object({ e: z.literal("refused"), message: z.string() }),
  z.object({ e: z.literal("failed"), message: z.string() }),
]);
export type RunnerEvent = z.infer<typeof runnerEvent>;

/** POST /k6/<key>/control: read k6's status or resume a paused k6 (its REST API is inside k6's own network). */
export const runnerControlRequest = z.object({ action: z.enum(["status", "resume"]) }).strict();

/** k6's execution status while paused before the run (lib.ExecutionStatusPausedBeforeRun): VUs are initialised. */
export const K6_PAUSED_BEFORE_RUN = 4;

export const k6Status = z.looseObject({
  status: z.number(),
  paused: z.boolean(),
  stopped: z.boolean().optional(),
  "vus-max": z.number().optional(),
});
export type K6Status = z.infer<typeof k6Status>;

/** The answer to a control request: k6's status (null while its API does not answer yet), or why it failed. */
export const runnerControlAnswer = z.union([z.object({ status: k6Status.nullable() }), z.object({ error: z.string() })]);

/** k6's --execution-segment arguments (in core: an external run's printed command lines use them too). */
export { executionSegmentArgs } from "@opsbench/core";
