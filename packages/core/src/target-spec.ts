import { z } from "zod";

/** The benchapps a local target can run (folders under benchapps/). */
export const LOCAL_APPS = ["cpu-loop/node-http"] as const;

export const targetName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "use lower-case letters, digits, '.', '_' or '-'");

export const localServiceSpec = z
  .object({
    app: z.enum(LOCAL_APPS),
    replicas: z.number().int().min(1).max(32).default(1),
    env: z.record(z.string(), z.string()).default({}),
    /** How long each replica may take to answer its health check. */
    startTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  })
  .strict();
export type LocalServiceSpec = z.infer<typeof localServiceSpec>;

/** Every target kind's spec schema, by kind. Adding a kind adds a line here. */
export const targetSpecs = {
  "local-service": localServiceSpec,
} as const;
export type TargetKind = keyof typeof targetSpecs;
export const targetKinds = Object.keys(targetSpecs) as TargetKind[];

export const targetInput = z.discriminatedUnion("kind", [
  z.object({ name: targetName, kind: z.literal("local-service"), spec: localServiceSpec }).strict(),
]);
export type TargetInput = z.infer<typeof targetInput>;
