// A run's provenance: the code that was loaded (commit, branch, pull request), the CI build that ran it and the
// team's own labels. The API, the CLI and the database take it through runProvenanceSchema; CI gives most of it
// through its environment (provenanceFromCiEnv), the CLI's flags the rest.
import { z } from "zod";
import { resourceName } from "../names/resource-name";

/** Label keys: what fits a CI variable's or a Kubernetes label's name (letters, digits, `_ . / -`). */
const LABEL_KEY = /^[A-Za-z0-9_./-]{1,63}$/;
export const MAX_PROVENANCE_LABELS = 20;

/** Postgres keeps no NUL in text or jsonb: refused here (422) rather than failing the write. */
const noNul = (s: string) => !s.includes("\0");
const NUL_MESSAGE = "cannot contain a NUL character";

/** Each field of a run's provenance, checked the same wherever it comes from. */
export const provenanceFields = {
  /** A git SHA, full or abbreviated; kept lower-case so a prefix filter finds it whatever case it was given in. */
  commit: z
    .string()
    .regex(/^[0-9a-fA-F]{7,64}$/, "a git commit SHA: 7 to 64 hex digits")
    .overwrite((s) => s.toLowerCase()),
  branch: z.string().min(1).max(255).refine(noNul, NUL_MESSAGE),
  // The column is a Postgres integer.
  pullRequest: z.number().int().positive().max(2_147_483_647),
  buildUrl: z
    .url({ protocol: /^https?$/, error: "an http(s) URL" })
    .max(2000)
    .refine(noNul, NUL_MESSAGE),
  labels: z
    .record(z.string().regex(LABEL_KEY, "a label key: 1 to 63 of A-Z a-z 0-9 _ . / -"), z.string().max(200).refine(noNul, NUL_MESSAGE))
    .refine((l) => Object.keys(l).length <= MAX_PROVENANCE_LABELS, `at most ${MAX_PROVENANCE_LABELS} labels`),
  /**
   * The series the run belongs to by name (docs/trends.md): the names' rule, as it is part of the trend page's
   * address; without it a run is in its target x workload's series.
   */
  series: resourceName,
};

/** What a client says about a run's provenance: every field optional. */
export const runProvenanceSchema = z.strictObject({
  commit: provenanceFields.commit.optional(),
  branch: provenanceFields.branch.optional(),
  pullRequest: provenanceFields.pullRequest.optional(),
  buildUrl: provenanceFields.buildUrl.optional(),
  labels: provenanceFields.labels.optional(),
  series: provenanceFields.series.optional(),
});
export type RunProvenance = z.output<typeof runProvenanceSchema>;

/** The provenance a run carries (its page, the API's answers): every field, null where unset, labels {} when none. */
export const recordedProvenanceSchema = z.strictObject({
  commit: z.string().nullable(),
  branch: z.string().nullable(),
  pullRequest: z.number().int().nullable(),
  buildUrl: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
  /** The series it was given by name (null: its target x workload's, if any). */
  series: z.string().nullable(),
});
export type RecordedProvenance = z.output<typeof recordedProvenanceSchema>;

/** What the runs.labels column holds (stored-json.ts). */
export const provenanceLabelsSchema = provenanceFields.labels;

/** Whether a run carries any provenance (the run page shows nothing for one that does not). */
export const hasProvenance = (p: RecordedProvenance): boolean =>
  p.commit !== null ||
  p.branch !== null ||
  p.pullRequest !== null ||
  p.buildUrl !== null ||
  p.series !== null ||
  Object.keys(p.labels).length > 0;

/** A list filter by label as the query gives it, `key=value` (the value may be empty or hold "="). */
export const labelFilterText = z
  .string()
  .regex(/^[A-Za-z0-9_./-]{1,63}=/, "key=value, the key 1 to 63 of A-Z a-z 0-9 _ . / -")
  .max(264)
  .refine(noNul, NUL_MESSAGE);
/** The same, split at its first "=". */
export const labelFilterSchema = labelFilterText.transform((s) => {
  const at = s.indexOf("=");
  return { key: s.slice(0, at), value: s.slice(at + 1) };
});
export type LabelFilter = z.output<typeof labelFilterSchema>;

/** A commit filter: a prefix of at least 7 hex digits (an abbreviated SHA finds the full one). */
export const commitFilterSchema = provenanceFields.commit;

type CiEnv = Readonly<Record<string, string | undefined>>;

/**
 * The provenance a CI job's environment gives (GitHub Actions, GitLab CI); nothing elsewhere (the CLI's flags
 * give it). A variable that does not pass its field's check is left out rather than failing the run: the job
 * did not choose it, and a flag can still give the field.
 */
export function provenanceFromCiEnv(env: CiEnv): RunProvenance {
  const raw = env.GITHUB_ACTIONS === "true" ? fromGithub(env) : env.GITLAB_CI === "true" ? fromGitlab(env) : {};
  const found: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const checked = provenanceFields[field as keyof typeof provenanceFields].safeParse(value);
    if (checked.success) found[field] = checked.data;
  }
  return runProvenanceSchema.parse(found);
}

const nonEmpty = (v: string | undefined) => (v ? v : undefined);
const positive = (v: string | undefined) => (v && /^[1-9]\d*$/.test(v) ? Number(v) : undefined);

function fromGithub(env: CiEnv) {
  const server = nonEmpty(env.GITHUB_SERVER_URL);
  const repo = nonEmpty(env.GITHUB_REPOSITORY);
  const runId = nonEmpty(env.GITHUB_RUN_ID);
  return {
    commit: nonEmpty(env.GITHUB_SHA),
    // GITHUB_HEAD_REF is the pull request's own branch; on a pull request GITHUB_REF_NAME is "<n>/merge".
    branch: nonEmpty(env.GITHUB_HEAD_REF) ?? nonEmpty(env.GITHUB_REF_NAME),
    pullRequest: positive(/^refs\/pull\/(\d+)\/merge$/.exec(env.GITHUB_REF ?? "")?.[1]),
    buildUrl: server && repo && runId ? `${server.replace(/\/+$/, "")}/${repo}/actions/runs/${runId}` : undefined,
  };
}

function fromGitlab(env: CiEnv) {
  return {
    commit: nonEmpty(env.CI_COMMIT_SHA),
    branch: nonEmpty(env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME) ?? nonEmpty(env.CI_COMMIT_REF_NAME),
    pullRequest: positive(env.CI_MERGE_REQUEST_IID),
    buildUrl: nonEmpty(env.CI_JOB_URL),
  };
}
