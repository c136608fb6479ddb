// The declarative form of a generated workload: what opsbench-engine runs natively instead of the k6 script.
import { describe, expect, it } from "vitest";
import {
  compileDeclarativeWorkload,
  compileK6Options,
  concurrencySweep,
  DECLARATIVE_FORMAT,
  type DeclarativeWorkload,
  type GeneratedWorkloadSpec,
  parseTemplate,
  workloadSpec,
} from "../src/index";

const generated = (spec: unknown) => workloadSpec.parse(spec) as GeneratedWorkloadSpec;
const compile = (spec: GeneratedWorkloadSpec) => JSON.parse(compileDeclarativeWorkload(spec)) as DeclarativeWorkload;

describe("compileDeclarativeWorkload", () => {
  it("starts with the format the engine recognises and carries exactly the script's options", () => {
    const spec = concurrencySweep({ levels: [4], iterations: 100, repetitions: 1 })[0]!.spec as GeneratedWorkloadSpec;
    const text = compileDeclarativeWorkload(spec);
    expect(text.startsWith(`{"opsbench":"${DECLARATIVE_FORMAT}"`)).toBe(true);
    const w = JSON.parse(text) as DeclarativeWorkload;
    expect(w.options).toEqual(compileK6Options(spec));
    expect(w.program).toEqual({
      requests: [
        {
          name: "home",
          tag: "home",
          method: "GET",
          path: [{ type: "text", text: "/" }],
          body: null,
          headers: [],
          expectStatus: null,
          weight: 1,
        },
      ],
      mix: "sequence",
      pools: {},
      setup: [],
      thinkTime: null,
      requestTimeout: 60,
      noConnectionReuse: false,
      reconnectEvery: 0,
    });
  });

  it("carries templates parsed, pools, weights, setup with its captures, think time and connection handling", () => {
    const w = compile(
      generated({
        kind: "constant-arrival-rate",
        rate: 10,
        duration: "5s",
        preAllocatedVUs: 2,
        mix: "weighted",
        pools: {
          user: { dimensions: { user: 100, device: 5 }, choice: "sequential" },
          product: { rows: [{ id: "p-1", price: 3 }], choice: { zipf: 1.25 } },
        },
        setup: [
          { name: "signin", method: "POST", path: "/signin/{{user.user}}", forEach: "user", capture: { token: "token" } },
          { name: "admin", method: "POST", path: "/admin", capture: { jwt: "data.jwt" }, expectStatus: [200, 201] },
        ],
        requests: [
          {
            name: "view",
            path: "/products/{{product.id}}",
            weight: 9,
            headers: { Authorization: "Bearer {{user.token}}", "X-Admin": "{{setup.jwt}}" },
          },
          { name: "buy", method: "POST", path: "/orders", body: '{"p":"{{product.id}}","pad":"{{payload 3}}"}', expectStatus: [201] },
        ],
        thinkTime: { min: "500ms", max: "2s" },
        requestTimeout: "1m30s",
        noConnectionReuse: true,
        reconnectEvery: 50,
        setupTimeout: "2m",
        thresholds: { http_req_duration: ["p(95)<500"] },
      }),
    );
    expect(w.options).toMatchObject({ noConnectionReuse: true, setupTimeout: "2m", thresholds: { http_req_duration: ["p(95)<500"] } });
    const p = w.program;
    expect(p.mix).toBe("weighted");
    expect(p.requests.map((r) => [r.name, r.tag, r.method, r.weight, r.expectStatus])).toEqual([
      ["view", "view", "GET", 9, null],
      ["buy", "buy", "POST", 1, [201]],
    ]);
    expect(p.requests[0]!.headers).toEqual([
      {
        name: "Authorization",
        value: [
          { type: "text", text: "Bearer " },
          { type: "pool", pool: "user", field: "token" },
        ],
      },
      { name: "X-Admin", value: [{ type: "setup", name: "jwt" }] },
    ]);
    expect(p.requests[1]!.body).toEqual([
      { type: "text", text: '{"p":"' },
      { type: "pool", pool: "product", field: "id" },
      { type: "text", text: '","pad":"' },
      { type: "payload", bytes: 3 },
      { type: "text", text: '"}' },
    ]);
    expect(p.pools).toEqual({
      user: {
        choice: "sequential",
        dimensions: [
          { name: "user", size: 100 },
          { name: "device", size: 5 },
        ],
      },
      product: { choice: { zipf: 1.25 }, rows: [{ id: "p-1", price: 3 }] },
    });
    expect(p.setup).toEqual([
      {
        name: "signin",
        tag: "setup: signin",
        method: "POST",
        path: [
          { type: "text", text: "/signin/" },
          { type: "pool", pool: "user", field: "user" },
        ],
        body: null,
        headers: [],
        expectStatus: null,
        forEach: "user",
        capture: [{ name: "token", selector: "token" }],
      },
      {
        name: "admin",
        tag: "setup: admin",
        method: "POST",
        path: [{ type: "text", text: "/admin" }],
        body: null,
        headers: [],
        expectStatus: [200, 201],
        forEach: null,
        capture: [{ name: "jwt", selector: "data.jwt" }],
      },
    ]);
    expect(p.thinkTime).toEqual({ min: 0.5, max: 2 });
    expect(p.requestTimeout).toBe(90);
    expect(p.noConnectionReuse).toBe(true);
    expect(p.reconnectEvery).toBe(50);
  });

  it("a fixed think time is seconds; a range never runs backwards", () => {
    const base = { kind: "constant-vus", vus: 1, duration: "1s", requests: [{ name: "a", path: "/" }] };
    expect(compile(generated({ ...base, thinkTime: "250ms" })).program.thinkTime).toBe(0.25);
    expect(compile(generated({ ...base, thinkTime: { min: "2s", max: "1s" } })).program.thinkTime).toEqual({ min: 2, max: 2 });
  });

  it("parses templates exactly as the script compiler does (the same parts, the same scoping of setup captures)", () => {
    const scope = { pools: new Map([["user", new Set(["user", "index"])]]), setupVars: new Set<string>() };
    const w = compile(
      generated({
        kind: "constant-vus",
        vus: 1,
        duration: "1s",
        pools: { user: { dimensions: { user: 2 } } },
        requests: [
          {
            name: "a",
            path: "/u/{{ user.user }}/{{randomInt 1 9}}?r={{randomString 4}}&id={{uuid}}&v={{vu}}&i={{iteration}}&t={{timestamp}}&e={{env.X}}",
          },
        ],
      }),
    );
    expect(w.program.requests[0]!.path).toEqual(
      parseTemplate(
        "/u/{{ user.user }}/{{randomInt 1 9}}?r={{randomString 4}}&id={{uuid}}&v={{vu}}&i={{iteration}}&t={{timestamp}}&e={{env.X}}",
        scope,
      ),
    );
  });
});
