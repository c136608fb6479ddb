// `opsbench run`'s provenance: what CI's environment gives (core's provenanceFromCiEnv) with the flags on top, a
// flag winning over the environment. No database module: the packed CLI holds this.
import { provenanceFields, provenanceFromCiEnv, type RunProvenance, runProvenanceSchema } from "@opsbench/core";
import type { z } from "zod";
import { UsageError } from "./usage-error";

export const PROVENANCE_OPTIONS = {
  commit: { type: "string" },
  branch: { type: "string" },
  pr: { type: "string" },
  "build-url": { type: "string" },
  label: { type: "string", multiple: true },
  series: { type: "string" },
} as const;

export const PROVENANCE_USAGE = "[--commit SHA] [--branch NAME] [--pr N] [--build-url URL] [--label KEY=VALUE]... [--series NAME]";

export interface ProvenanceFlags {
  commit?: string | undefined;
  branch?: string | undefined;
  pr?: string | undefined;
  "build-url"?: string | undefined;
  label?: string[] | undefined;
  series?: string | undefined;
}

/** A flag's value checked by its field's schema; a refusal is a usage error naming the flag. */
function flagValue<S extends z.ZodType>(flag: string, schema: S, value: unknown, text: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new UsageError(`--${flag}: ${r.error.issues[0]?.message ?? "not accepted"}, not "${text}"`);
  return r.data;
}

/** The run's provenance: the CI environment's, then each flag given over it; labels come from the flags only. */
export function runProvenance(flags: ProvenanceFlags, env: Readonly<Record<string, string | undefined>> = process.env): RunProvenance {
  const p: RunProvenance = { ...provenanceFromCiEnv(env) };
  if (flags.commit !== undefined) p.commit = flagValue("commit", provenanceFields.commit, flags.commit, flags.commit);
  if (flags.branch !== undefined) p.branch = flagValue("branch", provenanceFields.branch, flags.branch, flags.branch);
  if (flags.pr !== undefined) {
    const n = /^\d+$/.test(flags.pr) ? Number(flags.pr) : Number.NaN;
    p.pullRequest = flagValue("pr", provenanceFields.pullRequest, n, flags.pr);
  }
  if (flags["build-url"] !== undefined)
    p.buildUrl = flagValue("build-url", provenanceFields.buildUrl, flags["build-url"], flags["build-url"]);
  if (flags.label?.length) {
    const labels: Record<string, string> = {};
    for (const text of flags.label) {
      const at = text.indexOf("=");
      if (at < 1) throw new UsageError(`--label: KEY=VALUE, not "${text}"`);
      labels[text.slice(0, at)] = text.slice(at + 1);
    }
    const checked = provenanceFields.labels.safeParse(labels);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const key = issue?.path[0];
      throw new UsageError(`--label: ${issue?.message ?? "not accepted"}${typeof key === "string" ? ` ("${key}")` : ""}`);
    }
    p.labels = checked.data;
  }
  // The series by name (docs/trends.md): how runs without a target (imports, external runs) form one.
  if (flags.series !== undefined) p.series = flagValue("series", provenanceFields.series, flags.series, flags.series);
  return runProvenanceSchema.parse(p);
}
