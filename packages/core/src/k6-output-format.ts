import { z } from "zod";

// Lines written by opsbench's k6 output extension (apps/worker/k6-build/output).
export const k6MetaLine = z.object({ t: z.literal("meta"), version: z.literal(3), alpha: z.number(), minValueMs: z.number() });
export const k6HttpLine = z.object({
  t: z.literal("http"),
  s: z.number().int(),
  name: z.string(),
  class: z.string(),
  n: z.number().int(),
  fail: z.number().int(),
  sum: z.number(),
  min: z.number(),
  max: z.number(),
  /** Buckets, encoded as in histogram-encoding.ts, in base64. */
  b: z.string(),
});
export const k6LoadLine = z.object({
  t: z.literal("load"),
  s: z.number().int(),
  vus: z.number(),
  vusMax: z.number(),
  sent: z.number(),
  received: z.number(),
  iterations: z.number(),
  dropped: z.number(),
});
export const k6EndLine = z.object({ t: z.literal("end") });
export const k6OutputLine = z.discriminatedUnion("t", [k6MetaLine, k6HttpLine, k6LoadLine, k6EndLine]);
export type K6OutputLine = z.infer<typeof k6OutputLine>;
export type K6HttpLine = z.infer<typeof k6HttpLine>;
export type K6LoadLine = z.infer<typeof k6LoadLine>;
