// The variables several opsbench processes read, with their one set of defaults (the local set-up's ports and URLs
// come from local-settings.mjs, which every process applies before this schema: docs/self-hosting.md "Variables").
// In core because web, worker and cli all depend on it and it is a pure schema over a record (no I/O):
// each process's env module passes in process.env, picks the keys it uses and adds its own.
import { z } from "zod";
import { withConnectionUrls } from "./connection-urls";
import { LOCAL_DEFAULTS } from "./local-defaults.mjs";
import { parseBlockedPorts, parseLoadHostAllowlist, parsePrivateRanges } from "./load-hosts/load-host-policy";

export const sharedEnvSchema = z.object({
  // No default here: each process fills them in first from the one source of the local set-up's settings
  // (local-settings.mjs resolveLocalEnv: OPSBENCH_PG_PORT / OPSBENCH_REDIS_PORT and the set-up's passwords), so no
  // second, hard-coded default can point a process at another stack's database.
  DATABASE_URL: z.url("a postgresql:// URL (or POSTGRES_HOST and its parts; unset: the local set-up's on OPSBENCH_PG_PORT)"),
  REDIS_URL: z.url("a redis:// URL (or REDIS_HOST and its parts; unset: the local set-up's on OPSBENCH_REDIS_PORT)"),
  /** The port `opsbench` starts the web app on. */
  OPSBENCH_WEB_PORT: z.coerce.number().int().min(1).max(65535).default(LOCAL_DEFAULTS.OPSBENCH_WEB_PORT),
  /** Where Next builds the web app (apps/web/<dir>); side-by-side builds use their own. */
  OPSBENCH_NEXT_DIST_DIR: z
    .string()
    .regex(/^\.next[\w.-]*$/, 'a folder name starting with ".next"')
    .default(".next"),
  /**
   * "required" (the web app's default): every page and API route needs a session or an API token.
   * "off": one person on one machine, no sign-in; every request acts as the owner of the "default" workspace.
   * The CLI starts its local web app (127.0.0.1) with "off" unless told otherwise.
   */
  OPSBENCH_AUTH: z.enum(["required", "off"]).optional(),
  /**
   * Encrypts the workspaces' credentials at rest (AES-256-GCM): 32 random bytes as 64 hex digits or base64
   * (`openssl rand -base64 32`). The web app and the worker need the same one; without it no credential can be saved.
   */
  OPSBENCH_SECRET_KEY: z
    .string()
    .refine((k) => secretKeyBytes(k) !== null, "32 bytes as 64 hex digits or base64 (openssl rand -base64 32)")
    .optional(),
  /**
   * The bearer token /metrics asks for (the web app's and the worker's listener's). Unset: /metrics answers loopback
   * clients only (docs/self-hosting.md "Metrics").
   */
  OPSBENCH_METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional(),
});

/** A comma-separated setting read by `parse`, whose error (naming the bad entry) becomes the variable's. */
const listSetting = <T>(parse: (text: string) => T) =>
  z
    .string()
    .default("")
    .transform((v, ctx) => {
      try {
        return parse(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
        return z.NEVER;
      }
    });

/**
 * OPSBENCH_LOAD_ALLOWED_HOSTS (the worker's; the web app checks a target against it when it is saved): hosts that
 * load may go to although opsbench did not start them, comma-separated host names, `*.domain`, IP addresses or
 * CIDRs, or `host:port` / `host:first-last` (load-host-policy.ts); a loopback address only as `host:port`.
 */
export const loadAllowedHostsSetting = listSetting(parseLoadHostAllowlist);
/** OPSBENCH_LOAD_PRIVATE_RANGES (the worker's and, for the check at save, the web app's): private ranges load may reach. */
export const loadPrivateRangesSetting = listSetting(parsePrivateRanges);
/** OPSBENCH_LOAD_BLOCKED_PORTS (the worker's): more host:port pairs load must never reach. */
export const loadBlockedPortsSetting = listSetting(parseBlockedPorts);

/** The 32 bytes of an OPSBENCH_SECRET_KEY value (64 hex digits or base64), or null when it is not that. */
export function secretKeyBytes(key: string): Uint8Array | null {
  const k = key.trim();
  if (/^[0-9a-fA-F]{64}$/.test(k)) return Uint8Array.from(k.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
  if (!/^[A-Za-z0-9+/]{43}=?$/.test(k)) return null;
  const bin = atob(k.length === 43 ? `${k}=` : k);
  return bin.length === 32 ? Uint8Array.from(bin, (c) => c.charCodeAt(0)) : null;
}

/**
 * Parses an environment record with a process's schema. An empty variable counts as unset
 * (so `DATABASE_URL= opsbench ...` takes the default); a bad one throws, naming every problem.
 * DATABASE_URL and REDIS_URL may instead be given as parts (POSTGRES_HOST, POSTGRES_PORT,
 * POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB; REDIS_HOST, REDIS_PORT, REDIS_PASSWORD, REDIS_DB),
 * as the compose file does: the URL is built with the password URL-encoded, so any password works.
 */
export function parseProcessEnv<S extends z.ZodType>(
  schema: S,
  source: Readonly<Record<string, string | undefined>>,
  who: string,
): z.output<S> {
  const set = withConnectionUrls(Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== "")));
  const parsed = schema.safeParse(set);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`${who}: bad environment\n${lines.join("\n")}`);
  }
  return parsed.data;
}
