// The web app's only reader of process.env, validated once when the server boots.
import { z } from "zod";

const envSchema = z.object({
  DATABASE_URL: z.url().default("postgresql://opsbench@127.0.0.1:55432/opsbench"),
  REDIS_URL: z.url().default("redis://127.0.0.1:56379/0"),
});
export type Env = z.infer<typeof envSchema>;

function loadEnv(): Env {
  const parsed = envSchema.safeParse({
    DATABASE_URL: process.env.DATABASE_URL || undefined,
    REDIS_URL: process.env.REDIS_URL || undefined,
  });
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid environment: ${detail}`);
  }
  return parsed.data;
}

export const env: Env = loadEnv();
