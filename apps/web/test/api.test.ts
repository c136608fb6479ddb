import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestStack, testWebUrl } from "../../../tests/helpers";

const web = testWebUrl();
let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

const post = (path: string, body: unknown) =>
  fetch(`${web}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("REST API /api/v1", () => {
  it("refuses a malformed target spec with 422 naming the failing field, and writes nothing", async () => {
    const before = await stack.db.target.count();
    const res = await post("/api/v1/targets", {
      name: "api-bad",
      kind: "local-service",
      spec: { app: "cpu-loop/node-http", replicas: "two" },
    });
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.issues.map((i: { path: string }) => i.path)).toContain("spec.replicas");
    expect(await stack.db.target.count()).toBe(before);
  });

  it("refuses an unknown kind and a body that is not JSON with 422", async () => {
    const kind = await post("/api/v1/targets", { name: "api-bad", kind: "mainframe", spec: {} });
    expect(kind.status).toBe(422);
    expect(JSON.stringify(await kind.json())).toContain("kind");
    const notJson = await post("/api/v1/targets", "{not json");
    expect(notJson.status).toBe(422);
  });

  it("refuses a NUL character anywhere in a body with 422 naming where, and writes nothing (schemathesis found a 500)", async () => {
    const before = await stack.db.resultsExporter.count();
    const res = await post("/api/v1/exporters", { name: "a\u0000b", kind: "otlp-http", url: "https://otlp.example.com/v1/metrics" });
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.error.issues).toEqual([{ path: "name", message: "cannot contain a NUL character" }]);
    const nested = await post("/api/v1/targets", {
      name: "api-nul",
      kind: "local-service",
      spec: { app: "cpu-loop/node-http", env: { A: ["x", "\u0000"] } },
    });
    expect(nested.status).toBe(422);
    expect((await nested.json()).error.issues[0].path).toBe("spec.env.A.1");
    expect(await stack.db.resultsExporter.count()).toBe(before);
  });

  it("creates a valid target (201) and lists it", async () => {
    const res = await post("/api/v1/targets", {
      name: "api-good",
      kind: "local-service",
      spec: { app: "cpu-loop/node-http", replicas: 2 },
    });
    expect(res.status).toBe(201);
    const list: Array<{ name: string }> = await (await fetch(`${web}/api/v1/targets`)).json();
    const names = list.map((t) => t.name);
    expect(names).toContain("api-good");
  });

  it("refuses a run for an unknown target with 422 and creates no run", async () => {
    const before = await stack.db.run.count();
    const res = await post("/api/v1/runs", { target: "api-missing", workload: "whatever" });
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.error.issues.map((i: { path: string }) => i.path)).toContain("target");
    expect(await stack.db.run.count()).toBe(before);
  });

  it("answers 404 for an unknown or malformed run id", async () => {
    expect((await fetch(`${web}/api/v1/runs/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
    expect((await fetch(`${web}/api/v1/runs/not-a-uuid`)).status).toBe(404);
  });
});
