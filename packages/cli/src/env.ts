// The CLI's only reader of process.env.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseProcessEnv, sharedEnvSchema } from "@opsbench/core";
import { z } from "zod";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

export type CliEnv = z.infer<typeof sharedEnvSchema>;

export function loadEnv(): CliEnv {
  return parseProcessEnv(sharedEnvSchema, process.env, "opsbench");
}

/** The environment handed to the processes the CLI starts (worker, web). */
export function childEnv(env: CliEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: env.DATABASE_URL,
    REDIS_URL: env.REDIS_URL,
    OPSBENCH_NEXT_DIST_DIR: env.OPSBENCH_NEXT_DIST_DIR,
    NEXT_TELEMETRY_DISABLED: "1",
    // The web app the CLI starts listens on 127.0.0.1 only: one person's laptop, no sign-in unless asked for.
    OPSBENCH_AUTH: env.OPSBENCH_AUTH ?? "off",
    // Both need the same key: the web app seals credentials, the worker opens them.
    OPSBENCH_SECRET_KEY: env.OPSBENCH_SECRET_KEY,
  };
}

const remoteEnvSchema = z
  .object({
    /** A running opsbench server (e.g. https://bench.example.com): run, runs show go through its API. */
    OPSBENCH_URL: z.url().optional(),
    /** An API token from the server's settings page (a member's, in one workspace). */
    OPSBENCH_TOKEN: z.string().min(1).optional(),
  })
  .refine((e) => !e.OPSBENCH_URL || e.OPSBENCH_TOKEN, {
    message: "OPSBENCH_URL needs OPSBENCH_TOKEN (an API token)",
    path: ["OPSBENCH_TOKEN"],
  });

/** The server the CLI talks to instead of the database, when OPSBENCH_URL is set. */
export function loadRemote(): { url: string; token: string } | null {
  const e = parseProcessEnv(remoteEnvSchema, process.env, "opsbench");
  return e.OPSBENCH_URL && e.OPSBENCH_TOKEN ? { url: e.OPSBENCH_URL.replace(/\/+$/, ""), token: e.OPSBENCH_TOKEN } : null;
}
