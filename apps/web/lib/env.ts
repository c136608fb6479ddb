// The web app's only reader of process.env, validated once when the server boots (instrumentation.ts).
import {
  BUNDLE_BYTES_CEILING,
  loadAllowedHostsSetting,
  loadPrivateRangesSetting,
  MAX_BUNDLE_BYTES,
  parseProcessEnv,
  sharedEnvSchema,
} from "@opsbench/core";
import { findRepoRoot, resolveLocalEnv } from "@opsbench/core/local-services";
import { z } from "zod";
import { parseTrustedProxies } from "./server/client-address";

const webEnvSchema = sharedEnvSchema
  .pick({ DATABASE_URL: true, REDIS_URL: true, OPSBENCH_NEXT_DIST_DIR: true, OPSBENCH_SECRET_KEY: true, OPSBENCH_METRICS_TOKEN: true })
  .extend({
    OPSBENCH_AUTH: sharedEnvSchema.shape.OPSBENCH_AUTH.unwrap().default("required"),
    /** Signs session cookies; without it a secret made once is kept in the database (instance_settings). */
    OPSBENCH_AUTH_SECRET: z.string().min(32, "at least 32 characters").optional(),
    /** The address users reach the app at (e.g. https://bench.example.com); inferred from each request when unset. */
    OPSBENCH_PUBLIC_URL: z.url().optional(),
    /** Sign-in through the team's OpenID Connect provider (docs/self-hosting.md): its issuer URL, and the client. */
    OPSBENCH_OIDC_ISSUER: z.url().optional(),
    OPSBENCH_OIDC_CLIENT_ID: z.string().min(1).optional(),
    OPSBENCH_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    /** The provider's name on the sign-in button ("Sign in with <name>"). */
    OPSBENCH_OIDC_NAME: z.string().min(1).default("single sign-on"),
    /**
     * The worker's host policy, read here too so that a target the worker would refuse is refused when it is saved
     * (core load-hosts/save-time-refusal.ts): give the web app the same values as the worker (docs/security.md).
     */
    OPSBENCH_LOAD_ALLOWED_HOSTS: loadAllowedHostsSetting,
    OPSBENCH_LOAD_PRIVATE_RANGES: loadPrivateRangesSetting,
    /**
     * The packed CLI served at /cli/opsbench-cli.tgz (docs/ci.md); the web image holds its own (apps/web/cli-dist/),
     * built from the same source, so a checkout's `npm run web` serves one only when given this.
     */
    OPSBENCH_CLI_TARBALL: z.string().min(1).optional(),
    /** What a script's files (open() data, modules) may weigh together, in bytes (docs/workloads.md); the instance admin's. */
    OPSBENCH_MAX_SCRIPT_FILES_BYTES: z.coerce.number().int().min(1).max(BUNDLE_BYTES_CEILING).default(MAX_BUNDLE_BYTES),
    /**
     * The instance's own mail server (docs/self-hosting.md "Mail"): password-reset mail, invitations, e-mail
     * verification. smtp://[user:password@]host[:port] (STARTTLS when the server offers it) or smtps:// (implicit TLS).
     * Unset: no mail (no "Forgot password?", invitations are links an owner hands on). Workspaces' notification
     * e-mail uses their own SMTP settings, not this.
     */
    OPSBENCH_SMTP_URL: z
      .url({ message: "not a URL (e.g. smtp://user:password@mail.example.com:587 or smtps://mail.example.com)" })
      .refine((u) => /^smtps?:$/.test(new URL(u).protocol), "OPSBENCH_SMTP_URL starts smtp:// or smtps://")
      .optional(),
    /** The sender of the instance's mail. */
    OPSBENCH_SMTP_FROM: z.email({ message: "not an e-mail address" }).default("opsbench@localhost"),
    /** "true": a new account signs in only once its address is verified (a link mailed at sign-up; needs OPSBENCH_SMTP_URL). */
    OPSBENCH_REQUIRE_EMAIL_VERIFICATION: z.stringbool().default(false),
    /** Proxies whose X-Forwarded-For is believed (comma-separated IPs and CIDRs); none by default: the socket's address counts. */
    OPSBENCH_TRUSTED_PROXIES: z
      .string()
      .optional()
      .superRefine((text, ctx) => {
        try {
          parseTrustedProxies(text);
        } catch (err) {
          ctx.addIssue({ code: "custom", message: (err as Error).message });
        }
      }),
  });

const oidcVariables = ["OPSBENCH_OIDC_ISSUER", "OPSBENCH_OIDC_CLIENT_ID", "OPSBENCH_OIDC_CLIENT_SECRET"] as const;

export const env = parseProcessEnv(
  webEnvSchema.superRefine((e, ctx) => {
    const set = oidcVariables.filter((name) => e[name] !== undefined);
    if (set.length > 0 && set.length < oidcVariables.length)
      ctx.addIssue({
        code: "custom",
        path: [oidcVariables.find((name) => e[name] === undefined) ?? oidcVariables[0]],
        message: `OIDC sign-in needs all of ${oidcVariables.join(", ")} (only ${set.join(", ")} set)`,
      });
    if (e.OPSBENCH_REQUIRE_EMAIL_VERIFICATION && !e.OPSBENCH_SMTP_URL)
      ctx.addIssue({
        code: "custom",
        path: ["OPSBENCH_REQUIRE_EMAIL_VERIFICATION"],
        message: "e-mail verification mails a link: it needs OPSBENCH_SMTP_URL (the instance's mail server)",
      });
    // The redirect URI registered at the provider must be exact; one inferred from each request is not.
    if (set.length === oidcVariables.length && !e.OPSBENCH_PUBLIC_URL)
      ctx.addIssue({
        code: "custom",
        path: ["OPSBENCH_PUBLIC_URL"],
        message:
          "OIDC sign-in needs OPSBENCH_PUBLIC_URL (the address users reach opsbench at; the redirect URI is <it>/api/auth/callback/oidc)",
      });
  }),
  // Secrets from their *_FILE; no DATABASE_URL / REDIS_URL: the local set-up's on OPSBENCH_PG_PORT / OPSBENCH_REDIS_PORT
  // (with its passwords when this runs from a checkout), as the CLI and the worker resolve them.
  resolveLocalEnv(process.env, findRepoRoot()),
  "web",
);

/** The OIDC sign-in's settings when all of its variables are set. */
export const oidcSettings =
  env.OPSBENCH_OIDC_ISSUER && env.OPSBENCH_OIDC_CLIENT_ID && env.OPSBENCH_OIDC_CLIENT_SECRET
    ? {
        issuer: env.OPSBENCH_OIDC_ISSUER,
        clientId: env.OPSBENCH_OIDC_CLIENT_ID,
        clientSecret: env.OPSBENCH_OIDC_CLIENT_SECRET,
        name: env.OPSBENCH_OIDC_NAME,
      }
    : undefined;
/** OPSBENCH_TRUSTED_PROXIES, parsed (null: trust no proxy). */
export const trustedProxies = parseTrustedProxies(env.OPSBENCH_TRUSTED_PROXIES);
export type WebEnv = typeof env;
