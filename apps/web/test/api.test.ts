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

  it("answers a path whose percent-encoding is no UTF-8 text with 404 naming it (Next alone answered a bare 500), a page with 400", async () => {
    for (const path of ["/api/v1/runs/%AD%F2", "/api/v1/targets/%E0%A4%A/verification", "/api/v1/studies/%FF/tables"]) {
      const res = await fetch(`${web}${path}`);
      expect(res.status, path).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("not_found");
      expect(body.error.message).toContain(path);
      expect(body.error.message).toMatch(/malformed percent-encoding/);
    }
    const page = await fetch(`${web}/targets/%AD`);
    expect(page.status).toBe(400);
    expect(await page.text()).toMatch(/^400 Bad Request: .*malformed percent-encoding/);
    // Well-formed encodings still reach their routes.
    for (const path of ["/api/v1/runs/no%20such%20run", `/api/v1/targets/${encodeURIComponent("tāwhiri")}/verification`]) {
      const res = await fetch(`${web}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).not.toMatch(/percent-encoding/);
    }
  });
});
