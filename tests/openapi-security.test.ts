// The OpenAPI document says how to authenticate (issue 37): a `bearerAuth` HTTP bearer scheme (the API tokens) on
// every route that needs an account, the ingest route's own run token, and no requirement on a share link's public
// routes: the contracts' roles (apps/web/lib/api/contracts.ts) decide which.
import { describe, expect, it } from "vitest";
import { API_CONTRACTS, type RouteContract } from "../apps/web/lib/api/contracts";
import { openApiDocument } from "../apps/web/lib/api/openapi";

const doc = openApiDocument() as ReturnType<typeof openApiDocument> & {
  paths: Record<string, Record<string, { security?: Array<Record<string, string[]>>; responses: Record<string, unknown> }>>;
};

describe("the OpenAPI document's security", () => {
  it("declares bearerAuth (HTTP bearer) and the ingest token as security schemes, bearerAuth by default", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.ingestToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  it("requires bearerAuth on every route with a workspace role, none on public ones, the run's token on ingest", () => {
    const contracts = Object.values(API_CONTRACTS) as RouteContract[];
    const guarded = contracts.filter((c) => c.role !== "public");
    expect(guarded.length).toBeGreaterThan(30);
    for (const c of contracts) {
      const op = doc.paths[c.path]?.[c.method.toLowerCase()];
      expect(op, `${c.method} ${c.path}`).toBeDefined();
      const expected = c.role !== "public" ? [{ bearerAuth: [] }] : c.path.endsWith("/ingest") ? [{ ingestToken: [] }] : [];
      expect(op!.security, `${c.method} ${c.path}`).toEqual(expected);
      // A route that needs a token documents the 401 it answers without one.
      if (c.role !== "public") expect(Object.keys(op!.responses), `${c.method} ${c.path}`).toContain("401");
    }
    expect(doc.paths["/api/v1/runs"]?.post?.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths["/api/v1/public/shares/{token}"]?.get?.security).toEqual([]);
  });
});
