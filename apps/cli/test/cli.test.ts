import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, shortRamp, taewaTarget, runOpsbench } from "../../../tests/helpers";

let stack: Awaited<ReturnType<typeof openTestStack>>;

const opsbench = runOpsbench;

beforeAll(async () => {
  stack = await openTestStack();
  await stack.scope.targets.put(taewaTarget("cli-taewa"));
  await stack.scope.workloads.put(shortRamp("cli-ramp", { holdSeconds: 3 }));
  await stack.scope.workloads.put(shortRamp("cli-strict", { holdSeconds: 1, thresholds: { http_req_duration: ["p(95)<0.0001"] } }));
});
afterAll(() => stack.close());

describe("opsbench CLI", () => {
  it("refuses an unknown target or workload with exit 2, names it, and writes nothing", async () => {
    const before = await stack.db.run.count();
    const t = await opsbench("run", "--target", "nope", "--workload", "cli-ramp");
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('unknown target "nope"');
    expect(t.stderr).toContain("cli-taewa");
    const w = await opsbench("run", "--target", "cli-taewa", "--workload", "nope");
    expect(w.code).toBe(2);
    expect(w.stderr).toContain('unknown workload "nope"');
    expect(await stack.db.run.count()).toBe(before);
  });

  it("refuses bad usage with exit 2", async () => {
    expect((await opsbench("run", "--target", "cli-taewa")).code).toBe(2);
    expect((await opsbench("run", "--bogus")).code).toBe(2);
    expect((await opsbench("frobnicate")).code).toBe(2);
    const show = await opsbench("runs", "show", "00000000-0000-0000-0000-000000000000", "--json");
    expect(show.code).toBe(2);
    expect(show.stderr).toContain("no run with id");
  });

  it("runs and waits (exit 0), and `runs show --json` prints the same summary", async () => {
    const r = await opsbench("run", "--target", "cli-taewa", "--workload", "cli-ramp", "--json");
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(Object.keys(summary)).toEqual(expect.arrayContaining(["id", "status", "requests", "failures", "goodput", "rps", "latencyMs"]));
    expect(summary.status).toBe("SUCCEEDED");
    expect(summary.requests).toBeGreaterThan(0);
    expect(Object.keys(summary.latencyMs).sort()).toEqual(["avg", "max", "min", "p50", "p90", "p95", "p99"]);
    const show = await opsbench("runs", "show", summary.id, "--json");
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toEqual(summary);
    const first = JSON.parse((await opsbench("runs", "show", summary.id, "--from", "0", "--to", "3", "--json")).stdout);
    const rest = JSON.parse((await opsbench("runs", "show", summary.id, "--from", "3", "--to", "100", "--json")).stdout);
    expect(first.requests).toBeGreaterThan(0);
    expect(first.requests + rest.requests).toBe(summary.requests);
    const bad = await opsbench("runs", "show", summary.id, "--from", "5", "--to", "2");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--to must be");
  });

  it("exits 99 when the run finished but its thresholds failed", async () => {
    const r = await opsbench("run", "--target", "cli-taewa", "--workload", "cli-strict", "--json");
    expect(r.code, r.stderr).toBe(99);
    const summary = JSON.parse(r.stdout);
    expect(summary.status).toBe("SUCCEEDED");
    expect(summary.k6ExitCode).toBe(99);
  });
});
