// POST /api/v1/runs/external: a run fed by load started elsewhere (opsbench-engine or a stock k6 on CI runners, a
// Kubernetes Job of engine pods), created with an API token, and the settings those processes need. The packed CLI (`opsbench run --external`) sends and reads these.
import { runProvenanceSchema, targetName } from "@opsbench/core";
import { z } from "zod";
import { id, isoTime } from "./wire";

export const externalRunInput = z.strictObject({
  /** The run's name; default "<workload> (external)" or "external". */
  name: z.string().min(1).max(200).optional(),
  /**
   * A saved workload: its spec is kept on the run and its k6 script is in the answer. A name of the names' rule, so
   * that what no workload can be named (a NUL, which Postgres refuses in a lookup: a 500) is refused as input.
   */
  workload: targetName.optional(), // workload names follow the same rule as targets'
  /** How many k6 processes feed the run, each with its own execution segment. */
  generators: z.number().int().min(1).max(1000).default(1),
  /** The server's address as k6 reaches it; default: the server's public address (or this request's). */
  ingestBaseUrl: z.url().optional(),
  /** The Kubernetes Job's image (opsbench-engine: infra/engine-job/Dockerfile) and the ConfigMap holding script.js. */
  image: z.string().min(1).max(300).default("opsbench-engine-job:latest"),
  scriptConfigmap: z.string().min(1).max(253).default("opsbench-script"),
  /**
   * How long the ingest token works, in hours: at most the run's planned duration plus a margin (core's
   * externalRunBreaches), which is also the default.
   */
  validHours: z.number().positive().max(720).optional(),
  /** The code and build the run is of (core's runProvenanceSchema). */
  provenance: runProvenanceSchema.optional(),
});
export type ExternalRunInput = z.input<typeof externalRunInput>;

export const externalRunCreatedSchema = z.strictObject({
  id,
  /** The run-scoped ingest token: shown once, only its SHA-256 is kept. */
  token: z.string(),
  expiresAt: isoTime,
  ingestUrl: z.url(),
  /** One opsbench-engine command line per generator. */
  k6Commands: z.array(z.string()),
  /** One stock k6 command line per generator, its JSON output piped into `opsbench ingest`. */
  stockK6Commands: z.array(z.string()),
  /** A Kubernetes indexed Job of engine pods (one segment each) and the Secret with the token. */
  kubernetesJob: z.string(),
  /** The saved workload's k6 script, when one was named (the file name the command lines use). */
  script: z.strictObject({ file: z.string(), source: z.string() }).nullable(),
});
export type ExternalRunCreated = z.infer<typeof externalRunCreatedSchema>;
