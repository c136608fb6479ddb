import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openTestStack, apiFetch } from "../../../tests/helpers";

const web = inject("webUrl");
let stack: Awaited<ReturnType<typeof openTestStack>>;
beforeAll(async () => {
  stack = await openTestStack();
});
afterAll(() => stack.close());

const post = (path: string, body: unknown) =>
  apiFetch(`${web}${path}`, {
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

  it("creates a valid target (201) and lists it", async () => {
    const res = await post("/api/v1/targets", {
      name: "api-good",
      kind: "local-service",
      spec: { app: "cpu-loop/node-http", replicas: 2 },
    });
    expect(res.status).toBe(201);
    const list: Array<{ name: string }> = await (await apiFetch(`${web}/api/v1/targets`)).json();
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
    expect((await apiFetch(`${web}/api/v1/runs/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
    expect((await apiFetch(`${web}/api/v1/runs/not-a-uuid`)).status).toBe(404);
  });
});
