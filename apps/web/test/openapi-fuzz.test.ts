// A fuzz pass over /api/v1/openapi.json with schemathesis (PyPI; scripts/setup.mjs installs it into
// .tools/schemathesis-venv): generated valid and invalid requests to every operation must get no server error
// and no answer that its documented schema refuses. The workspace's limits are kept tight while it runs, so
// that what it manages to create (an inline study, say) stays small; anything it started is aborted after.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_INSTANCE_CEILINGS, DEFAULT_WORKSPACE_LIMITS } from "@opsbench/core";
import { openTestStack, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
const schemathesis = path.resolve(import.meta.dirname, "../../../.tools/schemathesis-venv/bin/schemathesis");
let stack: Awaited<ReturnType<typeof openTestStack>>;
const startedAt = new Date();

const putLimits = (limits: Record<string, number>) =>
  fetch(`${web}/api/v1/limits`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(limits) });

beforeAll(async () => {
  stack = await openTestStack();
  expect((await putLimits({ maxDurationSeconds: 5, maxVUs: 2, maxArrivalRate: 5, maxStudyRuns: 2, runCreationsPerMinute: 5 })).status).toBe(
    200,
  );
});

afterAll(async () => {
  // Whatever the fuzz managed to start is aborted, so the worker is free for the next test file.
  const studies = await stack.db.study.findMany({ where: { createdAt: { gte: startedAt }, status: { in: ["QUEUED", "RUNNING"] } } });
  for (const s of studies) await fetch(`${web}/api/v1/studies/${s.id}/abort`, { method: "POST" });
  const runs = await stack.db.run.findMany({ where: { createdAt: { gte: startedAt }, studyId: null, finishedAt: null } });
  for (const r of runs) await fetch(`${web}/api/v1/runs/${r.id}/abort`, { method: "POST" });
  // The fuzz may have set the instance's ceilings too (sign-in is off: the caller is the admin).
  await fetch(`${web}/api/v1/instance/ceilings`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(DEFAULT_INSTANCE_CEILINGS),
  });
  await putLimits({ ...DEFAULT_WORKSPACE_LIMITS });
  await stack.close();
});

function run(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(schemathesis, args, { env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code: code ?? -1, output }));
  });
}

describe("OpenAPI fuzz (schemathesis)", () => {
  // A fixed amount of work (25 examples of each operation the document lists): about a minute on a quiet machine; the
  // bound leaves room for one ten times as busy.
  it("finds no server error and no answer outside its documented schema", { timeout: 600_000 }, async () => {
    expect(existsSync(schemathesis), `${schemathesis} is missing: run node scripts/setup.mjs --for test`).toBe(true);
    const args = [
      "run",
      `${web}/api/v1/openapi.json`,
      "--checks",
      "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance",
      // Not the coverage phase: its unsupported-method probe (TRACE) gets a 500 from Next itself ("'TRACE' HTTP
      // method is unsupported", thrown before any route code), and on Python 3.11 it crashes on this document's size.
      "--phases",
      "examples,fuzzing",
      "--max-examples",
      "25",
      "--seed",
      "20261123",
      "--workers",
      "2",
      "--request-timeout",
      "30",
      "--suppress-health-check",
      "all",
      "--no-shrink",
      // The document declares its bearerAuth scheme; sign-in is off here, and made-up tokens (several KB, with a long
      // query past Node's 16 KB header limit: a 431 from Node, not from a route) test nothing the authorization
      // matrix does not (authorization-matrix.test.ts), so no Authorization header is generated.
      "--generation-with-security-parameters",
      "false",
      // Event streams never end; setting the limits would loosen the ones this run relies on (both are called
      // by the route contract test).
      // The ingest route takes k6 output lines as text (its own test sends them); schemathesis cannot make such a body.
      "--exclude-path-regex",
      "/events$|/ingest$",
      "--exclude-operation-id",
      "putApiV1Limits",
    ];
    let { code, output } = await run(args);
    // CPython 3.11 (3.11.7 here) sometimes fails its own ast.parse deep in hypothesis (which describes a lambda
    // strategy by parsing its source): "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905),
    // a fault of the interpreter, not a finding about the server. Seen once in a full run; the fuzz is run once more.
    if (code !== 0 && /SystemError: AST constructor recursion depth mismatch/.test(output)) ({ code, output } = await run(args));
    expect(code, output.slice(-8000)).toBe(0);
    expect(output).toMatch(/passed/i);
  });
});
