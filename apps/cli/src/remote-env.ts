// The CLI's settings in remote mode (OPSBENCH_URL + OPSBENCH_TOKEN): all the packed CLI reads of process.env.
import { parseProcessEnv } from "@opsbench/core";
// OPSBENCH_TOKEN_FILE / OPSBENCH_INGEST_TOKEN_FILE: a CI secret mounted as a file.
import { withSecretFiles } from "@opsbench/core/local-services";
import { z } from "zod";
import type { Remote } from "./remote-client";

const seconds = z.coerce.number().positive().max(86_400);

const remoteEnvSchema = z
  .object({
    /** A running opsbench server (e.g. https://bench.example.com): run, runs show go through its API. */
    OPSBENCH_URL: z.url().optional(),
    /** An API token from the server's settings page (a member's, in one workspace). */
    OPSBENCH_TOKEN: z.string().min(1).optional(),
    /** Seconds one API request may take before it counts as unanswered (default 60). */
    OPSBENCH_REQUEST_TIMEOUT: seconds.optional(),
    /** Seconds a call that cannot reach the server keeps being tried again, with backoff (default 120; 0: never). */
    OPSBENCH_RETRY_FOR: z.coerce.number().min(0).max(86_400).optional(),
  })
  .refine((e) => !e.OPSBENCH_URL || e.OPSBENCH_TOKEN, {
    message: "OPSBENCH_URL needs OPSBENCH_TOKEN (an API token)",
    path: ["OPSBENCH_TOKEN"],
  });

/** The server the CLI talks to instead of the database, when OPSBENCH_URL is set; retries are said on stderr. */
export function loadRemote(): Remote | null {
  const e = parseProcessEnv(remoteEnvSchema, withSecretFiles(process.env), "opsbench");
  if (!e.OPSBENCH_URL || !e.OPSBENCH_TOKEN) return null;
  return {
    url: e.OPSBENCH_URL.replace(/\/+$/, ""),
    token: e.OPSBENCH_TOKEN,
    timeoutMs: e.OPSBENCH_REQUEST_TIMEOUT === undefined ? undefined : e.OPSBENCH_REQUEST_TIMEOUT * 1000,
    retryForMs: e.OPSBENCH_RETRY_FOR === undefined ? undefined : e.OPSBENCH_RETRY_FOR * 1000,
    say: (m) => process.stderr.write(`opsbench: ${m}\n`),
  };
}

const ingestEnvSchema = z.object({
  /** The opsbench server `opsbench ingest` posts to, unless --url names it. */
  OPSBENCH_URL: z.url().optional(),
  /** The external run's own ingest token (`opsbench run --external` prints it), unless --token-file holds it. */
  OPSBENCH_INGEST_TOKEN: z.string().min(1).optional(),
});

/** What `opsbench ingest` reads of the environment (no API token: the run's ingest token is its only key). */
export function loadIngestEnv(): z.infer<typeof ingestEnvSchema> {
  return parseProcessEnv(ingestEnvSchema, withSecretFiles(process.env), "opsbench ingest");
}
