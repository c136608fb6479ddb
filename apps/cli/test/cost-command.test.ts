// `opsbench cost`: the real command in a child process, on model and usage files
// in a temporary folder; the figures are the IoT study's (study 000, Section 5.2).
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opsbenchCommand } from "../../../tests/helpers";

const bin = opsbenchCommand();
let dir: string;

function opsbench(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
const file = async (name: string, content: unknown) => {
  await writeFile(path.join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  return name;
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-cost-"));
  await file("gke.json", { kind: "reserved", unit: "EUR-cent", pricePerNodeSecond: 0.0087959, feePerSecond: 0.0024996 });
  await file("gke-base.json", { durationSeconds: 1800, nodes: [{ fromSecond: 0, count: 2 }], requests: 327921 });
  await file("cloud-run.json", { kind: "pay-per-use", unit: "EUR-cent", pricePerRequest: 2.568e-5, pricePerVcpuSecond: 9.122e-4, vcpu: 1 });
  await file("users-get-linear.json", { requests: 325239, meanBilledSeconds: 0.02594 });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("opsbench cost", () => {
  it("prices the IoT study's GKE base run: 2 nodes x 1,800 s = 36.16 ct (study 36.1643), with line items", async () => {
    const r = await opsbench("cost", "--model", "gke.json", "--usage", "gke-base.json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // 3,600 node-s x 0.0087959 + 1,800 s x 0.0024996 = 31.66524 + 4.49928 (the study's rates are rounded to 5 digits)
    expect(r.stdout).toMatch(/node time\s+3,600 node-s\s+x 0\.0087959\s+= 31\.6652/);
    expect(r.stdout).toMatch(/fixed fee\s+1,800 s\s+x 0\.0024996\s+= 4\.49928/);
    expect(r.stdout).toMatch(/total: 36\.1645 EUR-cent/);
    expect(r.stdout).toMatch(/per 1,000 requests, failed ones included \(327,921\): 0\.110284 EUR-cent/);
  });

  it("--json prints total, perThousandRequests and unit; the study's figures to 4 significant digits", async () => {
    const r = await opsbench("cost", "--model", "gke.json", "--usage", "gke-base.json", "--json");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.unit).toBe("EUR-cent");
    expect(out.total.toPrecision(4)).toBe("36.16");
    expect(out.perThousandRequests.toFixed(4)).toBe("0.1103"); // Table 5.45, Users-Get linear, GKE-50
    expect(out.lines.map((l: { key: string }) => l.key)).toEqual(["nodes", "fee"]);

    const cr = JSON.parse((await opsbench("cost", "--model", "cloud-run.json", "--usage", "users-get-linear.json", "--json")).stdout);
    expect(cr.total.toPrecision(4)).toBe("16.05"); // Table A.1: 16.0485
    expect(cr.perThousandRequests.toFixed(4)).toBe("0.0493"); // Table 5.45
  });

  it("prices OpenWhisk's 5 nodes and a scaled GKE run from a catalog entry: 83.66 and 49.93 ct", async () => {
    await file("study-gke.json", { catalog: "iot-study-gke-europe-west3" });
    await file("ow.json", { durationSeconds: 1800, nodes: [{ fromSecond: 0, count: 5 }], requests: 154893, failedRequests: 9 });
    // GKE-50, Users-Signin random: a third node for the last 1,565 s.
    await file("gke50-signin-random.json", {
      durationSeconds: 1800,
      nodes: [
        { fromSecond: 0, count: 2 },
        { fromSecond: 235, count: 3 },
      ],
      requests: 189695,
    });
    const ow = JSON.parse((await opsbench("cost", "--model", "study-gke.json", "--usage", "ow.json", "--json")).stdout);
    expect(ow.total.toPrecision(4)).toBe("83.66"); // 83.6619
    expect(ow.perThousandRequests.toFixed(4)).toBe("0.5401");
    expect(ow.successfulRequests).toBe(154884);
    expect(ow.catalog).toEqual({ name: "iot-study-gke-europe-west3", version: "2022-04" });
    const gke = JSON.parse((await opsbench("cost", "--model", "study-gke.json", "--usage", "gke50-signin-random.json", "--json")).stdout);
    expect(gke.total.toPrecision(4)).toBe("49.93"); // 49.9298
    expect(gke.perThousandRequests.toFixed(4)).toBe("0.2632");
  });

  it("applies a platform's rounding to per-request durations", async () => {
    await file("lambda.json", { catalog: "aws-lambda-x86-us-east-1", memoryGib: 1 });
    await file("lambda-usage.json", { requestSeconds: [0.0101, 0.002, 0.5] });
    const out = JSON.parse((await opsbench("cost", "--model", "lambda.json", "--usage", "lambda-usage.json", "--json")).stdout);
    expect(out.unit).toBe("USD");
    expect(out.requests).toBe(3);
    expect(out.total).toBeCloseTo(3 * 2e-7 + (0.011 + 0.002 + 0.5) * 0.0000166667, 15);
  });

  it("exits 2 naming the usage file and the field", async () => {
    await file("bad-usage.json", { durationSeconds: 1800, nodes: [{ fromSecond: 0, count: -2 }] });
    const r = await opsbench("cost", "--model", "gke.json", "--usage", "bad-usage.json");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage file bad-usage\.json: nodes\[0\]\.count: must be >= 0/);
    expect(r.stdout).toBe("");
  });

  it("exits 2 naming the model file and the fields (a missing one, a misspelt one)", async () => {
    await file("bad-model.json", { kind: "reserved", unit: "EUR-cent", pricePerNodeSecnd: 0.0087959 });
    const r = await opsbench("cost", "--model", "bad-model.json", "--usage", "gke-base.json");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/model file bad-model\.json: pricePerNodeSecond: .*; pricePerNodeSecnd: unknown field/);
  });

  it("exits 2 for a file that is not JSON or not there", async () => {
    await file("not-json.json", "{ kind: reserved");
    let r = await opsbench("cost", "--model", "not-json.json", "--usage", "gke-base.json");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/model file not-json\.json is not valid JSON/);
    r = await opsbench("cost", "--model", "gke.json", "--usage", "missing.json");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read usage file missing\.json: no such file/);
  });

  it("exits 2 for a usage that does not fit the model's billing, or a missing flag", async () => {
    await file("instance-billed.json", { catalog: "gcp-cloud-run-tier1-instance-based" });
    let r = await opsbench("cost", "--model", "instance-billed.json", "--usage", "users-get-linear.json");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage file users-get-linear\.json: meanBilledSeconds: does not apply to instance-based billing/);
    r = await opsbench("cost", "--model", "gke.json");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cost needs --model FILE\.json and --usage FILE\.json/);
  });

  it("--catalogs lists the built-in price catalogs with source and date", async () => {
    const r = await opsbench("cost", "--catalogs", "--json");
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ name: string; source: string; date: string }>;
    expect(list.map((e) => e.name)).toContain("iot-study-gke-europe-west3");
    expect(list.every((e) => e.source && /^\d{4}-\d{2}-\d{2}$/.test(e.date))).toBe(true);
  });
});
