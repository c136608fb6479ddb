// The CI gate on imported k6 files of one service (issue 34, finding 1): one run a side says only what two runs
// showed, so `--fail-on` is inconclusive there (JUnit: skipped with the reason, exit 0) unless the run-to-run CV is
// stated (`--run-cv`: the interval widened by it) or the baseline side has repetitions (`--baseline-runs N`).
// The files are written here with every request's latency known; the right answers are computed from them.
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { seededRandom } from "@opsbench/core";
import { parse as parseJunit } from "junit2json";
import { beforeAll, describe, expect, it } from "vitest";
import { runOpsbenchWith } from "../../../tests/helpers";
import { exactQuantile, importK6Requests, type WrittenRequest } from "../../../tests/k6-result-files";
import { startSignedInWeb } from "../../../tests/test-identity";
import { receiver, signatureVerifies } from "../../../tests/webhook-receiver";

const { web, owner } = await startSignedInWeb();
const remote = { OPSBENCH_URL: web, OPSBENCH_TOKEN: owner.token, DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" };
const opsbench = (...args: string[]) => runOpsbenchWith(remote, ...args);
const dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-gate-"));
const T0 = Date.UTC(2026, 10, 29, 6, 0, 0);

/** 60 s at 10 req/s, latencies uniform over [50, 150) ms times `slower`, all successful. */
function requests(seed: number, slower = 1): WrittenRequest[] {
  const rand = seededRandom(seed);
  return Array.from({ length: 600 }, (_, i) => ({ atMs: i * 100, ms: (50 + 100 * rand()) * slower, ok: true }));
}
const p95 = (reqs: readonly WrittenRequest[]) =>
  exactQuantile(
    reqs.map((r) => r.ms),
    0.95,
  );

const files: Record<string, WrittenRequest[]> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  // In import order (so in time): another service's run, three runs of the service, then the candidates.
  const plan: Array<[key: string, name: string, reqs: WrittenRequest[]]> = [
    ["other", "gate-other-svc", requests(10)],
    ["b1", "gate-svc", requests(1)],
    ["b2", "gate-svc", requests(2)],
    ["b3", "gate-svc", requests(3)],
    ["candidate", "gate-svc", requests(4)],
    ["slow", "gate-svc-slow", requests(5, 2)],
  ];
  for (const [key, name, reqs] of plan) {
    files[key] = reqs;
    ids[key] = await importK6Requests(dir, name, reqs, { t0: T0 });
  }
}, 180_000);

interface GateJson {
  comparison: {
    baselineIds: string[];
    runCvPercent: number | null;
    samples: { baseline: number; candidate: number; basis: string; scope: string } | null;
    rules: Array<{ rule: string; outcome: string; change: { estimate: number; low: number; high: number } | null; message: string }>;
  };
}
type Junit = {
  failures?: number;
  skipped?: number;
  testsuite?: Array<{ testcase?: Array<{ name?: string; failure?: Array<{ message?: string }>; skipped?: Array<{ message?: string }> }> }>;
};
const gateCase = async (file: string, name: string) =>
  ((await parseJunit(readFileSync(file, "utf8"))) as Junit).testsuite?.[0]?.testcase?.find((c) => c.name === name);

describe("opsbench compare --fail-on on imported runs of one service", () => {
  it("one run a side: inconclusive, skipped in JUnit with the reason, exit 0; --fail-on-inconclusive exits 99", async () => {
    const junit = path.join(dir, "within-run.xml");
    const summary = path.join(dir, "within-run.md");
    const r = await opsbench(
      ...["compare", ids.candidate!, "--baseline", ids.b3!, "--fail-on", "p95 > +10%", "--junit", junit, "--summary", summary, "--json"],
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as GateJson;
    expect(out.comparison.samples?.scope).toBe("within-run");
    const [rule] = out.comparison.rules;
    expect(rule?.outcome).toBe("inconclusive");
    expect(rule?.message).toContain("one run a side: state --run-cv or use --baseline-runs N");
    // The change the two runs showed is still reported: the files' p95s, relative to the baseline's.
    const [b, c] = [p95(files.b3!), p95(files.candidate!)];
    expect(Math.abs(rule!.change!.estimate - (c - b) / b)).toBeLessThan(0.01);
    const testcase = await gateCase(junit, "p95 > +10%");
    expect(testcase?.failure).toBeUndefined();
    expect(testcase?.skipped?.[0]?.message).toContain("one run a side: state --run-cv or use --baseline-runs N");
    expect(readFileSync(summary, "utf8")).toContain("| `p95 > +10%` | ➖ inconclusive |");
    expect(readFileSync(summary, "utf8")).toContain("passed (1 rule inconclusive)");

    const strict = path.join(dir, "strict.xml");
    const failing = await opsbench(
      ...["compare", ids.candidate!, "--baseline", ids.b3!, "--fail-on", "p95 > +10%", "--fail-on-inconclusive", "--junit", strict],
    );
    expect(failing.code, failing.stderr).toBe(99);
    expect((await gateCase(strict, "p95 > +10%"))?.failure?.[0]?.message).toContain("one run a side");
  });

  it("--run-cv 10: judged between configurations on the widened interval, which a +10% rule cannot pass at one run a side", async () => {
    const r = await opsbench("compare", ids.candidate!, "--baseline", ids.b3!, "--fail-on", "p95 > +10%", "--run-cv", "10", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("runCv=10");
    const out = JSON.parse(r.stdout) as GateJson;
    expect(out.comparison.samples?.scope).toBe("between-configurations");
    expect(out.comparison.runCvPercent).toBe(10);
    const rule = out.comparison.rules[0]!;
    expect(rule.message).not.toContain("one run a side");
    // The stated CV alone widens the 95% interval to at least +-1.96 x sqrt((0.1 b)^2 + (0.1 c)^2) / b around the
    // change, wider than the distance to +10% on either side: neither a pass nor a fail can be read from it.
    const [b, c] = [p95(files.b3!), p95(files.candidate!)];
    const halfWidth = (1.96 * Math.sqrt((0.1 * b) ** 2 + (0.1 * c) ** 2)) / b;
    expect(Math.abs(rule.change!.estimate - (c - b) / b)).toBeLessThan(0.01);
    expect(rule.change!.high - rule.change!.estimate).toBeGreaterThanOrEqual(halfWidth * 0.999);
    expect(rule.change!.estimate - rule.change!.low).toBeGreaterThanOrEqual(halfWidth * 0.999);
    expect((c - b) / b + halfWidth).toBeGreaterThan(0.1);
    expect(rule.outcome).toBe("inconclusive");

    // Twice as slow (+100%) is beyond the widened interval: the rule fails (99).
    const slow = await opsbench("compare", ids.slow!, "--baseline", ids.b3!, "--fail-on", "p95 > +10%", "--run-cv", "10", "--json");
    expect(slow.code, slow.stderr).toBe(99);
    const slowRule = (JSON.parse(slow.stdout) as GateJson).comparison.rules[0]!;
    expect(slowRule.outcome).toBe("fail");
    expect(Math.abs(slowRule.change!.estimate - (p95(files.slow!) - b) / b)).toBeLessThan(0.02);
  });

  it("--baseline-runs 3: the baseline run and the two runs of its series before it against the run", async () => {
    const r = await opsbench("compare", ids.candidate!, "--baseline", ids.b3!, "--fail-on", "p95 > +10%", "--baseline-runs", "3", "--json");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as GateJson;
    // Newest first, the other service's run and the candidate (created later) left out.
    expect(out.comparison.baselineIds).toEqual([ids.b3, ids.b2, ids.b1]);
    expect(out.comparison.samples?.baseline).toBe(3);
    expect(out.comparison.samples?.candidate).toBe(1);
    expect(out.comparison.samples?.scope).toBe("between-configurations");
    // One run against three: the three runs' spread stands for both, se = s sqrt(1/3 + 1), t(0.975, 2) = 4.3027. The
    // server's p95s are its histograms' (0.8% apart at most), a spread of a few ms here: the half-width to within 50%,
    // which a normal interval (1.96, not 4.30) or one without the candidate's own run (sqrt(1/3)) would miss.
    const base = [files.b1!, files.b2!, files.b3!].map(p95);
    const mean = base.reduce((a, x) => a + x, 0) / 3;
    const s = Math.sqrt(base.reduce((a, x) => a + (x - mean) ** 2, 0) / 2);
    const rule = out.comparison.rules[0]!;
    expect(Math.abs(rule.change!.estimate - (p95(files.candidate!) - mean) / mean)).toBeLessThan(0.01);
    const halfWidth = (4.3027 * s * Math.sqrt(1 / 3 + 1)) / mean;
    expect(rule.change!.high - rule.change!.estimate).toBeGreaterThan(0.66 * halfWidth);
    expect(rule.change!.high - rule.change!.estimate).toBeLessThan(1.5 * halfWidth);
    expect(r.stderr).toContain(`g=baseline%3A${ids.b3}%2C${ids.b2}%2C${ids.b1}`);

    const more = await opsbench("compare", ids.candidate!, "--baseline", ids.b3!, "--fail-on", "p95 > +10%", "--baseline-runs", "5");
    expect(more.stderr).toContain("--baseline-runs 5: found only 3");
    for (const n of ["1", "31", "2.5", "x"]) {
      const bad = await opsbench("compare", ids.candidate!, "--baseline", ids.b3!, "--baseline-runs", n);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`--baseline-runs ${n}: expected a whole number of runs from 2 to 30`);
    }
    const badCv = await opsbench("compare", ids.candidate!, "--baseline", ids.b3!, "--run-cv", "80");
    expect(badCv.code).toBe(2);
    expect(badCv.stderr).toContain("--run-cv 80: at most 50 (percent)");
    const zeroCv = await opsbench("compare", ids.candidate!, "--baseline", ids.b3!, "--run-cv", "0");
    expect(zeroCv.code).toBe(2);
    expect(zeroCv.stderr).toContain("--run-cv 0: must be above 0 (percent)");
  });

  it("reports a gate that fails to the server, whose webhook subscribed to gate.tripped gets it signed (docs/notifications.md)", async () => {
    const hook = await receiver();
    const { got } = hook;
    try {
      const url = hook.url;
      const created = await fetch(`${web}/api/v1/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
        body: JSON.stringify({ url, events: ["gate.tripped"] }),
      });
      expect(created.status).toBe(201);
      const { secret } = (await created.json()) as { secret: string };
      const slow = await opsbench("compare", ids.slow!, "--baseline", ids.b3!, "--fail-on", "p95 > +10%", "--run-cv", "10");
      expect(slow.code, slow.stderr).toBe(99);
      expect(slow.stderr).toContain("the workspace was notified (1 delivery queued)");
      await expect.poll(() => got.length, { timeout: 60_000 }).toBe(1);
      const event = JSON.parse(got[0]!.body);
      expect(event).toMatchObject({ event: "gate.tripped", runId: ids.slow, detail: { baselineRunId: ids.b3 } });
      expect(event.detail.rules[0].rule).toBe("p95 > +10%");
      expect(signatureVerifies(got[0]!, secret)).toBe(true);
      // A gate that passes reports nothing.
      const passing = await opsbench("compare", ids.candidate!, "--baseline", ids.b3!, "--fail-on", "p95 > +10%", "--run-cv", "10");
      expect(passing.code, passing.stderr).toBe(0);
      expect(passing.stderr).not.toContain("notified");
    } finally {
      await hook.close();
    }
  });
});
