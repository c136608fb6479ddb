// POST /api/v1/runs/external: a run fed by k6 started elsewhere (CI runners, k6-operator), created with an API
// token, and the settings its k6 processes need. The packed CLI (`opsbench run --external`) sends and reads these.
import { z } from "zod";
import { id, isoTime } from "./wire";

export const externalRunInput = z.strictObject({
  /** The run's name; default "<workload> (external)" or "external". */
  name: z.string().min(1).max(200).optional(),
  /** A saved workload: its spec is kept on the run and its k6 script is in the answer. */
  workload: z.string().min(1).optional(),
  /** How many k6 processes feed the run, each with its own execution segment. */
  generators: z.number().int().min(1).max(1000).default(1),
  /** The server's address as k6 reaches it; default: the server's public address (or this request's). */
  ingestBaseUrl: z.url().optional(),
  /** The k6-operator runner image (k6 built with the opsbench output) and the ConfigMap holding script.js. */
  image: z.string().min(1).max(300).default("opsbench-k6:latest"),
  scriptConfigmap: z.string().min(1).max(253).default("opsbench-script"),
  /** How long the ingest token works, in hours. */
  validHours: z.number().positive().max(720).default(24),
});
export type ExternalRunInput = z.input<typeof externalRunInput>;

export const externalRunCreatedSchema = z.strictObject({
  id,
  /** The run-scoped ingest token: shown once, only its SHA-256 is kept. */
  token: z.string(),
  expiresAt: isoTime,
  ingestUrl: z.url(),
  /** One k6 command line per generator. */
  k6Commands: z.array(z.string()),
  /** A k6-operator TestRun and the Secret with the token. */
  testRun: z.string(),
  /** The saved workload's k6 script, when one was named (the file name the command lines use). */
  script: z.strictObject({ file: z.string(), source: z.string() }).nullable(),
});
export type ExternalRunCreated = z.infer<typeof externalRunCreatedSchema>;
