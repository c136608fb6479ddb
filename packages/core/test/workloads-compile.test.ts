import { describe, expect, it } from "vitest";
import {
  K6_RUNTIME_SOURCE,
  compileK6Options,
  compileK6Script,
  loadProfile,
  parseTemplate,
  plannedSeconds,
  seededRandom,
  templateToJs,
  workloadInput,
  workloadSpec,
  type GeneratedWorkloadSpec,
  type TemplateScope,
} from "../src/index";
import { shopSession } from "./fixtures/shop-session";

const requests = [{ name: "home", path: "/" }];
const options = (input: unknown) => compileK6Options(workloadSpec.parse(input) as GeneratedWorkloadSpec);
const issues = (input: unknown) => {
  const r = workloadSpec.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("executor kinds", () => {
  it("constant-vus: a closed loop at fixed concurrency for T seconds", () => {
    const o = options({ kind: "constant-vus", vus: 20, duration: "5m", requests });
    expect(o.scenarios).toEqual({ main: { executor: "constant-vus", vus: 20, duration: "5m" } });
  });

  it("shared-iterations: fixed concurrency for N requests (ab -n/-c)", () => {
    const o = options({ kind: "shared-iterations", vus: 10, iterations: 10_000, requests });
    expect(o.scenarios).toEqual({ main: { executor: "shared-iterations", vus: 10, iterations: 10_000, maxDuration: "30m" } });
    expect(issues({ kind: "shared-iterations", vus: 10, iterations: 5, requests })).toEqual([
      "iterations: iterations must be at least vus (each VU takes one)",
    ]);
  });

  it("constant- and ramping-arrival-rate carry rate, time unit and VU pools", () => {
    expect(
      options({ kind: "constant-arrival-rate", rate: 50, timeUnit: "1s", duration: "1m", preAllocatedVUs: 10, maxVUs: 40, requests })
        .scenarios,
    ).toEqual({
      main: { executor: "constant-arrival-rate", rate: 50, timeUnit: "1s", duration: "1m", preAllocatedVUs: 10, maxVUs: 40 },
    });
    // maxVUs defaults to the pre-allocated VUs; gracefulStop passes through.
    expect(
      options({ kind: "constant-arrival-rate", rate: 5, duration: "1m", preAllocatedVUs: 3, gracefulStop: "5s", requests }).scenarios,
    ).toEqual({
      main: {
        executor: "constant-arrival-rate",
        rate: 5,
        timeUnit: "1s",
        duration: "1m",
        preAllocatedVUs: 3,
        maxVUs: 3,
        gracefulStop: "5s",
      },
    });
    const ramp = {
      kind: "ramping-arrival-rate",
      startRate: 5,
      timeUnit: "1m",
      stages: [
        { duration: "30s", target: 60 },
        { duration: "0s", target: 120 },
      ],
      preAllocatedVUs: 2,
      maxVUs: 8,
      requests,
    };
    expect(options(ramp).scenarios).toEqual({
      main: { executor: "ramping-arrival-rate", startRate: 5, timeUnit: "1m", stages: ramp.stages, preAllocatedVUs: 2, maxVUs: 8 },
    });
    expect(loadProfile(workloadSpec.parse(ramp))).toEqual([
      { t: 0, rate: 5 / 60 },
      { t: 30, rate: 1 },
      { t: 30, rate: 2 },
    ]);
    expect(issues({ ...ramp, maxVUs: 1 })).toEqual(["maxVUs: maxVUs must be at least preAllocatedVUs"]);
    expect(issues({ kind: "constant-arrival-rate", rate: 0, duration: "1m", preAllocatedVUs: 1, requests }).length).toBeGreaterThan(0);
  });

  it("ramping-vus keeps its shape (workloads stored before still parse and compile the same)", () => {
    const o = options({
      kind: "ramping-vus",
      stages: [{ duration: "10s", target: 5 }],
      requests,
      thresholds: { http_req_duration: ["p(95)<500"] },
    });
    expect(o).toEqual({
      scenarios: { main: { executor: "ramping-vus", startVUs: 0, stages: [{ duration: "10s", target: 5 }], gracefulRampDown: "10s" } },
      thresholds: { http_req_duration: ["p(95)<500"] },
      summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"],
    });
  });

  it("connection options: noConnectionReuse in k6's options; periodic reconnect in the script", () => {
    expect(options({ kind: "constant-vus", vus: 1, duration: "1s", requests, noConnectionReuse: true }).noConnectionReuse).toBe(true);
    const script = compileK6Script(workloadSpec.parse({ kind: "constant-vus", vus: 1, duration: "1s", requests, reconnectEvery: 25 }));
    expect(script).toContain("(exec.vu.iterationInScenario + 1) % 25 === 0");
    expect(script).toContain('headers["Connection"] = "close"');
  });

  it("a user script passes through unchanged and has no profile of ours", () => {
    const source = "export default function () {}\n";
    const spec = workloadSpec.parse({ kind: "script", source });
    expect(compileK6Script(spec)).toBe(source);
    expect(loadProfile(spec)).toEqual([]);
    expect(plannedSeconds(spec)).toBe(0);
    expect(issues({ kind: "script", source: "" })).toEqual(["source: the script is empty"]);
    expect(issues({ kind: "script", source, extra: 1 }).length).toBe(1);
  });

  it("names what is wrong in a bad workload, with its path", () => {
    const r = workloadInput.safeParse({ name: "w", spec: { kind: "constant-vus", vus: 0, duration: "soon", requests } });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["spec.vus", "spec.duration"]));
    expect(issues({ kind: "bogus" })[0]).toMatch(/kind/);
  });
});

describe("request mixes", () => {
  const scope: TemplateScope = {
    pools: new Map([["user", new Set(["user", "device", "index", "token"])]]),
    setupVars: new Set(["token"]),
  };
  /** Evaluates a compiled template the way the script does, with the runtime in scope. */
  const render = (text: string, c: Record<string, unknown>) =>
    new Function("c", "__ENV", `${K6_RUNTIME_SOURCE}\nreturn ${templateToJs(parseTemplate(text, scope))};`)(c, { REGION: "eu" }) as string;
  const ctx = {
    row: (p: string) => ({ user: { user: 7, device: 3, token: "t-7" } })[p],
    vars: { token: "abc" },
    vu: 4,
    iter: 9,
    random: seededRandom(1),
  };

  it("templates: pool fields, setup captures, env, vu, iteration, payload", () => {
    expect(render("/api/users/{{user.user}}/devices/{{ user.device }}", ctx)).toBe("/api/users/7/devices/3");
    expect(render("Bearer {{setup.token}} / {{user.token}}", ctx)).toBe("Bearer abc / t-7");
    expect(render("{{env.REGION}}-{{vu}}-{{iteration}}", ctx)).toBe("eu-4-9");
    expect(render("{{payload 1024}}", ctx)).toHaveLength(1024);
    expect(render("{{payload 0}}", ctx)).toBe("");
    expect(render("no templates here", ctx)).toBe("no templates here");
  });

  it("templates: random values within their bounds", () => {
    const ints = new Set(Array.from({ length: 2000 }, () => Number(render("{{randomInt 1 6}}", ctx))));
    expect([...ints].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(render("{{randomString 12}}", ctx)).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(render("{{uuid}}", ctx)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number(render("{{timestamp}}", ctx))).toBeGreaterThan(1.7e12);
  });

  it("templates: mistakes are refused with what is wrong", () => {
    const bad = (t: string) => {
      try {
        parseTemplate(t, scope);
        return "";
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(bad("/{{product.id}}")).toBe('"{{product.id}}": unknown pool "product" (pools: user)');
    expect(bad("/{{user.email}}")).toBe('"{{user.email}}": pool "user" has no field "email" (fields: user, device, index, token)');
    expect(bad("/{{setup.session}}")).toBe('"{{setup.session}}": no setup request captures "session" before this point (captured: token)');
    expect(bad("/{{randomInt 5}}")).toMatch(/randomInt takes two integers/);
    expect(bad("/{{randomInt 9 1}}")).toMatch(/must not exceed/);
    expect(bad("/{{shuffle a b}}")).toMatch(/unknown function "shuffle"/);
    expect(bad("/{{user.id")).toBe('unclosed "{{" at character 2');
  });

  it("validates templates against the workload's pools and setup captures, with paths", () => {
    const spec = {
      kind: "constant-vus",
      vus: 1,
      duration: "1s",
      pools: { user: { dimensions: { user: 100, device: 5 } } },
      setup: [{ name: "signin", method: "POST", path: "/signin/{{user.user}}", forEach: "user", capture: { token: "token" } }],
      requests: [
        { name: "get", path: "/users/{{user.user}}?t={{user.token}}", headers: { Authorization: "Bearer {{setup.jwt}}" } },
        { name: "bad", path: "/{{device.id}}", body: "{{user.nope}}" },
      ],
    };
    expect(issues(spec)).toEqual([
      'requests.0.headers.Authorization: "{{setup.jwt}}": no setup request captures "jwt" before this point',
      'requests.1.path: "{{device.id}}": unknown pool "device" (pools: user)',
      'requests.1.body: "{{user.nope}}": pool "user" has no field "nope" (fields: user, device, index, token)',
    ]);
    expect(issues({ ...spec, setup: [{ name: "s", path: "/", forEach: "people" }] })[0]).toBe(
      'setup.0.forEach: unknown pool "people" (pools: user)',
    );
    expect(issues({ kind: "constant-vus", vus: 1, duration: "1s", requests: [{ name: "a", path: "/", weight: 2 }] })).toEqual([
      'requests.0.weight: weights need "mix": "weighted"',
    ]);
    expect(
      issues({ kind: "constant-vus", vus: 1, duration: "1s", pools: { p: { dimensions: { a: 2000, b: 2000 } } }, requests })[0],
    ).toMatch(/at most 1000000 rows/);
  });

  it("compiles pools, key choice, weights, setup, checks and think time into the script", () => {
    const script = compileK6Script(
      workloadSpec.parse({
        kind: "ramping-arrival-rate",
        stages: [{ duration: "10s", target: 10 }],
        preAllocatedVUs: 2,
        pools: {
          user: { dimensions: { user: 100, device: 5 } },
          product: { rows: [{ id: "p-1" }, { id: "p-2" }], choice: { zipf: 1.25 } },
        },
        ...shopSession({
          signin: { path: "/signin", body: '{"user":"{{user.user}}"}' },
          view: "/products/{{product.id}}",
          buy: { path: "/orders", body: '{"product":"{{product.id}}"}' },
        }),
        thinkTime: { min: "1s", max: "3s" },
      }),
    );
    expect(script).toContain('import { SharedArray } from "k6/data"');
    expect(script).toContain('"product": (function () {');
    expect(script).toContain('choice: {"zipf":1.25}');
    expect(script).toContain('obDimensionRow(["user","device"], [100,5], i)');
    expect(script).toContain("const PICK_REQUEST = obWeighted([9,1], Math.random);");
    expect(script).toContain("export function setup()");
    expect(script).toContain('tags: { name: "setup: signin" }');
    expect(script).toContain("responseCallback: http.expectedStatuses(200)");
    expect(script).toContain('"Authorization": "" + "Bearer " + c.row("user")["token"]');
    expect(script).toContain("sleep(1 + Math.random() * 2);");
    // Without pools of given rows or setup, neither is imported or defined.
    const plain = compileK6Script(workloadSpec.parse({ kind: "constant-vus", vus: 1, duration: "1s", requests }));
    expect(plain).not.toContain("SharedArray");
    expect(plain).not.toContain("export function setup");
  });
});
