// What the API takes and returns for results exporters (docs/exports.md): where each finished run's per-second series
// go (Prometheus remote write, OTLP over HTTP), the credential write-only (a bearer token or a basic-auth password,
// stored sealed), and the log of the runs sent.
import { EXPORTER_AUTH, EXPORTER_KINDS, exportAttemptSchema } from "@opsbench/core";
import { z } from "zod";
import { id, isoTime, nullableIsoTime } from "./wire";

const urlOf = (u: string): URL | null => {
  try {
    return new URL(u);
  } catch {
    return null;
  }
};

const exporterUrl = z
  .url({ message: "not a URL (e.g. https://prometheus.example.com/api/v1/write)" })
  .max(2000)
  .refine((u) => !urlOf(u) || /^https?:$/.test(urlOf(u)!.protocol), "an exporter URL is http:// or https://")
  .refine((u) => !urlOf(u)?.username && !urlOf(u)?.password, "an exporter URL carries no user or password (set auth: basic)");

const fields = {
  name: z.string().trim().min(1, "name the exporter").max(100),
  /** "prometheus-remote-write": remote write 1.0 (protobuf + snappy); "otlp-http": OTLP metrics, protobuf over HTTP. */
  kind: z.enum(EXPORTER_KINDS),
  url: exporterUrl,
  /** "none", "bearer" (secret: the token) or "basic" (username and secret: the password). */
  auth: z.enum(EXPORTER_AUTH),
  username: z.string().min(1).max(320).optional(),
  secret: z.string().min(1).max(4000).optional(),
  enabled: z.boolean(),
};

const credentialRule = <T extends { auth?: string | undefined; username?: string | undefined; secret?: string | undefined }>(
  v: T,
  ctx: z.RefinementCtx,
  creating: boolean,
) => {
  if (v.auth === "basic" && creating && !v.username)
    ctx.addIssue({ code: "custom", path: ["username"], message: "basic auth needs a username" });
  if (v.auth && v.auth !== "none" && creating && !v.secret)
    ctx.addIssue({
      code: "custom",
      path: ["secret"],
      message: `${v.auth} auth needs a secret (the ${v.auth === "bearer" ? "token" : "password"})`,
    });
  if (v.auth === "none" && (v.username || v.secret))
    ctx.addIssue({ code: "custom", path: ["auth"], message: 'auth "none" takes no username or secret' });
};

/** POST /api/v1/exporters. */
export const exporterInput = z
  .object({ ...fields, auth: fields.auth.default("none"), enabled: fields.enabled.default(true) })
  .strict()
  .superRefine((v, ctx) => credentialRule(v, ctx, true));
export type ExporterInputBody = z.infer<typeof exporterInput>;

/** PUT /api/v1/exporters/{id}: what is given changes; a secret left out keeps the stored one (auth "none" forgets it). */
export const exporterUpdate = z
  .object({
    name: fields.name.optional(),
    kind: fields.kind.optional(),
    url: fields.url.optional(),
    auth: fields.auth.optional(),
    username: fields.username,
    secret: fields.secret,
    enabled: fields.enabled.optional(),
  })
  .strict()
  .superRefine((v, ctx) => credentialRule(v, ctx, false));

export const exporterItemSchema = z.strictObject({
  id,
  name: z.string(),
  kind: z.enum(EXPORTER_KINDS),
  url: z.string(),
  auth: z.enum(EXPORTER_AUTH),
  username: z.string().nullable(),
  /** Whether a token or password is stored (it is never answered). */
  hasSecret: z.boolean(),
  enabled: z.boolean(),
  createdBy: z.string(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type ExporterItem = z.infer<typeof exporterItemSchema>;

export const exporterDeletedSchema = z.strictObject({ id, deleted: z.literal(true) });

export const exportItemSchema = z.strictObject({
  id,
  exporterId: id,
  exporterName: z.string(),
  runId: id,
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int().min(0),
  attemptLog: z.array(exportAttemptSchema),
  lastResponseCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  series: z.number().int().nullable(),
  samples: z.number().int().nullable(),
  createdAt: isoTime,
  deliveredAt: nullableIsoTime,
});
export type ExportItem = z.infer<typeof exportItemSchema>;

/** GET /api/v1/exporters/exports: newest first; ?exporter= one exporter's, ?limit= how many (default 50). */
export const exportsQuery = z
  .object({
    exporter: z.uuid({ message: "not an exporter id (expected a UUID)" }).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
