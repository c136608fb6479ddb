// A run's provenance from CI's environment (GitHub Actions, GitLab CI; nothing elsewhere), and the schema that
// refuses what a run must not carry.
import { describe, expect, it } from "vitest";
import { labelFilterSchema, provenanceFromCiEnv, runProvenanceSchema } from "../src/index";

const SHA = "3f786850e387550fdab836ed7e6dc881de23001b";

const github = {
  GITHUB_ACTIONS: "true",
  GITHUB_SHA: SHA,
  GITHUB_SERVER_URL: "https://github.com",
  GITHUB_REPOSITORY: "acme/shop",
  GITHUB_RUN_ID: "9876543210",
};

describe("provenanceFromCiEnv", () => {
  it("reads a GitHub Actions push: the branch is GITHUB_REF_NAME and there is no pull request", () => {
    expect(provenanceFromCiEnv({ ...github, GITHUB_REF: "refs/heads/main", GITHUB_REF_NAME: "main", GITHUB_HEAD_REF: "" })).toEqual({
      commit: SHA,
      branch: "main",
      buildUrl: "https://github.com/acme/shop/actions/runs/9876543210",
    });
  });

  it("reads a GitHub Actions pull request: its own branch (GITHUB_HEAD_REF) and its number from GITHUB_REF", () => {
    expect(
      provenanceFromCiEnv({
        ...github,
        GITHUB_REF: "refs/pull/42/merge",
        GITHUB_REF_NAME: "42/merge",
        GITHUB_HEAD_REF: "feature/faster-cart",
      }),
    ).toEqual({
      commit: SHA,
      branch: "feature/faster-cart",
      pullRequest: 42,
      buildUrl: "https://github.com/acme/shop/actions/runs/9876543210",
    });
  });

  it("reads a GitLab CI branch pipeline and a merge request pipeline", () => {
    const gitlab = {
      GITLAB_CI: "true",
      CI_COMMIT_SHA: SHA.toUpperCase(),
      CI_COMMIT_REF_NAME: "main",
      CI_JOB_URL: "https://gitlab.example.com/acme/shop/-/jobs/1234",
    };
    expect(provenanceFromCiEnv(gitlab)).toEqual({ commit: SHA, branch: "main", buildUrl: gitlab.CI_JOB_URL });
    expect(
      provenanceFromCiEnv({
        ...gitlab,
        CI_COMMIT_REF_NAME: "refs/merge-requests/7/head",
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: "fix-login",
        CI_MERGE_REQUEST_IID: "7",
      }),
    ).toEqual({ commit: SHA, branch: "fix-login", pullRequest: 7, buildUrl: gitlab.CI_JOB_URL });
  });

  it("gives nothing outside CI, even with CI-like variables set", () => {
    expect(provenanceFromCiEnv({})).toEqual({});
    expect(provenanceFromCiEnv({ GITHUB_SHA: SHA, CI_COMMIT_SHA: SHA, GITHUB_ACTIONS: "false" })).toEqual({});
  });

  it("leaves out a CI variable its field refuses, keeping the others", () => {
    expect(
      provenanceFromCiEnv({ ...github, GITHUB_SHA: "not-a-sha", GITHUB_SERVER_URL: "ftp://github.com", GITHUB_REF_NAME: "main" }),
    ).toEqual({ branch: "main" });
  });
});

describe("runProvenanceSchema", () => {
  const refusedAt = (input: unknown) => {
    const r = runProvenanceSchema.safeParse(input);
    return r.success ? null : r.error.issues.map((i) => i.path.join("."));
  };

  it("takes every field, and a commit in any case (kept lower-case)", () => {
    const labels = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k8s.io/name-${i}`, "x".repeat(200)]));
    expect(
      runProvenanceSchema.parse({ commit: "ABCDEF1", branch: "b".repeat(255), pullRequest: 1, buildUrl: "http://ci/1", labels }),
    ).toEqual({ commit: "abcdef1", branch: "b".repeat(255), pullRequest: 1, buildUrl: "http://ci/1", labels });
    expect(runProvenanceSchema.parse({})).toEqual({});
  });

  it("refuses bad values, naming the field", () => {
    expect(refusedAt({ commit: "abc123" })).toEqual(["commit"]); // 6 digits
    expect(refusedAt({ commit: "g".repeat(40) })).toEqual(["commit"]);
    expect(refusedAt({ commit: "a".repeat(65) })).toEqual(["commit"]);
    expect(refusedAt({ branch: "" })).toEqual(["branch"]);
    expect(refusedAt({ branch: "b".repeat(256) })).toEqual(["branch"]);
    expect(refusedAt({ pullRequest: 0 })).toEqual(["pullRequest"]);
    expect(refusedAt({ pullRequest: 1.5 })).toEqual(["pullRequest"]);
    expect(refusedAt({ pullRequest: 2 ** 31 })).toEqual(["pullRequest"]);
    expect(refusedAt({ buildUrl: "javascript:alert(1)" })).toEqual(["buildUrl"]);
    expect(refusedAt({ buildUrl: "ftp://ci.example.com/1" })).toEqual(["buildUrl"]);
    expect(refusedAt({ buildUrl: `https://ci.example.com/${"a".repeat(2000)}` })).toEqual(["buildUrl"]);
    expect(refusedAt({ labels: { "bad key": "v" } })).toEqual(["labels.bad key"]);
    expect(refusedAt({ labels: { ["k".repeat(64)]: "v" } })).toEqual([`labels.${"k".repeat(64)}`]);
    expect(refusedAt({ labels: { k: "v".repeat(201) } })).toEqual(["labels.k"]);
    expect(refusedAt({ labels: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])) })).toEqual(["labels"]);
    // Postgres keeps no NUL in text or jsonb: a 422, not a failed write.
    expect(refusedAt({ branch: "main\0" })).toEqual(["branch"]);
    expect(refusedAt({ labels: { k: "a\0b" } })).toEqual(["labels.k"]);
    expect(refusedAt({ buildUrl: "https://ci.example.com/\0" })).toEqual(["buildUrl"]);
    expect(refusedAt({ sha: SHA })).toEqual([""]);
  });

  it("reads a label filter as key=value, the value holding any further '='", () => {
    expect(labelFilterSchema.parse("env=staging")).toEqual({ key: "env", value: "staging" });
    expect(labelFilterSchema.parse("q=a=b")).toEqual({ key: "q", value: "a=b" });
    expect(labelFilterSchema.safeParse("no-equals").success).toBe(false);
    expect(labelFilterSchema.safeParse("bad key=v").success).toBe(false);
  });
});
