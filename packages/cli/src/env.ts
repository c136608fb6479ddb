// The CLI's only reader of process.env.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

const schema = z.object({
  DATABASE_URL: z.string().url().default("postgresql://opsbench@127.0.0.1:55432/opsbench"),
  REDIS_URL: z.string().url().default("redis://127.0.0.1:56379/0"),
  OPSBENCH_WEB_PORT: z.coerce.number().int().min(1).max(65535).default(3210),
  /** Where Next builds the web app (apps/web/<dir>); side-by-side builds use their own. */
  OPSBENCH_NEXT_DIST_DIR: z
    .string()
    .regex(/^\.next[\w.-]*$/, 'a folder name starting with ".next"')
    .default(".next"),
});
export type CliEnv = z.infer<typeof schema>;

export function loadEnv(): CliEnv {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    throw new Error(`bad environment: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}

/** The environment handed to the processes the CLI starts (worker, web). */
export function childEnv(env: CliEnv): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    DATABASE_URL: env.DATABASE_URL,
    REDIS_URL: env.REDIS_URL,
    OPSBENCH_NEXT_DIST_DIR: env.OPSBENCH_NEXT_DIST_DIR,
    NEXT_TELEMETRY_DISABLED: "1",
  };
}
