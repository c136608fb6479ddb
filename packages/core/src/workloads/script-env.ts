// What a user's k6 script is given besides the target's address (issue 37): `opsbench run --env KEY=VALUE` (plain,
// kept with the run and shown on its page) and workspace secrets by name (`--secret NAME`: sealed in the database,
// opened by the worker for the run only, masked as *** in what the run shows). The sandbox rule holds: the script's
// __ENV is exactly OPSBENCH_BASE_URL, these, and nothing of the worker's own environment.
import { z } from "zod";

/** k6's __ENV keys as the runner takes them (runner-protocol.ts): upper-case letters, digits and "_". */
export const SCRIPT_ENV_KEY = /^[A-Z_][A-Z0-9_]*$/;
/** Prefixes of the keys opsbench and the engine set themselves (OPSBENCH_BASE_URL, OPSBENCH_ENGINE_*, K6_*): not a run's to set. */
export const RESERVED_SCRIPT_ENV_PREFIXES = ["OPSBENCH_", "K6_"] as const;
export const MAX_SCRIPT_ENV = 50;
export const MAX_SCRIPT_ENV_VALUE = 4096;

const envKey = z
  .string()
  .max(100)
  .regex(SCRIPT_ENV_KEY, "an __ENV key: upper-case letters, digits and '_', not starting with a digit")
  .refine((k) => !RESERVED_SCRIPT_ENV_PREFIXES.some((p) => k.startsWith(p)), {
    message: "opsbench sets OPSBENCH_* and K6_* keys itself (the target's address is OPSBENCH_BASE_URL)",
  });

/** A secret's name: the __ENV key the script reads it as. */
export const scriptSecretName = envKey;

/** `--env KEY=VALUE` pairs as a run keeps them; a bad key's issue is at its key, naming the rule. */
export const scriptEnvSchema = z
  .record(z.string(), z.string().max(MAX_SCRIPT_ENV_VALUE, `a value may be at most ${MAX_SCRIPT_ENV_VALUE} characters`))
  .superRefine((env, ctx) => {
    const keys = Object.keys(env);
    if (keys.length > MAX_SCRIPT_ENV) ctx.addIssue({ code: "custom", message: `at most ${MAX_SCRIPT_ENV} --env keys, not ${keys.length}` });
    for (const key of keys) {
      const r = envKey.safeParse(key);
      if (!r.success) ctx.addIssue({ code: "custom", path: [key], message: r.error.issues[0]?.message ?? "not an __ENV key" });
    }
  });

/** The secret names a run asks for: distinct, none also given with --env. */
export const scriptSecretNames = z
  .array(scriptSecretName)
  .max(MAX_SCRIPT_ENV)
  .refine((names) => new Set(names).size === names.length, {
    message: "a secret is named twice",
  });

/** A secret's value: what the script reads. */
export const scriptSecretValue = z.string().min(1, "the value is empty").max(MAX_SCRIPT_ENV_VALUE);

/** What the run page shows of a run's script environment: --env values as given, secrets as ***. */
export function shownScriptEnv(
  env: Record<string, string>,
  secrets: readonly string[],
): Array<{ key: string; value: string; secret: boolean }> {
  return [
    ...Object.entries(env).map(([key, value]) => ({ key, value, secret: false })),
    ...secrets.map((key) => ({ key, value: "***", secret: true })),
  ].sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * Replaces every secret value in a text (k6's output tail, an error, a log line) with ***. Longer values first, so
 * a value holding another is masked whole; values shorter than 4 characters are masked too (a script's "1" would
 * blank every digit, but a leaked short secret is worse than an ugly log).
 */
export function maskSecrets(text: string, values: readonly string[]): string {
  let out = text;
  for (const v of [...new Set(values)].filter(Boolean).sort((a, b) => b.length - a.length)) out = out.split(v).join("***");
  return out;
}
