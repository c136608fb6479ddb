// The JavaScript of a generated workload: data pools, the requests as
// functions of the iteration context (templates compiled in), setup(), and the
// default function (sequence or weighted mix, reconnects, think time).
import type { GeneratedWorkloadSpec } from "./workload-spec";
import { durationSeconds } from "./duration";
import { poolFields, type PoolSpec, type RequestSpec, type SetupStep } from "./request-mix";
import { isConstant, parseTemplate, templateToJs, type TemplateScope } from "./template";

const q = (v: unknown) => JSON.stringify(v);

function poolJs(name: string, pool: PoolSpec): string {
  const choice = q(pool.choice ?? "uniform");
  if ("dimensions" in pool) {
    const names = Object.keys(pool.dimensions);
    const sizes = names.map((n) => pool.dimensions[n]!);
    const size = sizes.reduce((a, b) => a * b, 1);
    return `  ${q(name)}: { size: ${size}, choice: ${choice}, row: function (i) { return obDimensionRow(${q(names)}, ${q(sizes)}, i); } },`;
  }
  // Given rows live once in memory, shared by all VUs.
  return `  ${q(name)}: (function () {
    var rows = new SharedArray(${q(`opsbench pool ${name}`)}, function () { return ${q(pool.rows)}; });
    return { size: rows.length, choice: ${choice}, row: function (i) { return rows[i]; } };
  })(),`;
}

/** A request as data: constant parts precomputed, templated parts as functions of the iteration context `c`. */
function requestJs(r: RequestSpec | SetupStep, scope: TemplateScope, timeout: string, tagName: string): { js: string; dynamic: boolean } {
  const path = parseTemplate(r.path, scope);
  const body = r.body === undefined ? null : parseTemplate(r.body, scope);
  const headers = Object.entries(r.headers).map(([h, v]) => [h, parseTemplate(v, scope)] as const);
  const headersJs = `{ ${headers.map(([h, parts]) => `${q(h)}: ${templateToJs(parts)}`).join(", ")} }`;
  const dynamicHeaders = headers.some(([, parts]) => !isConstant(parts));
  const params = [`tags: { name: ${q(tagName)} }`, `timeout: ${q(timeout)}`];
  if (!dynamicHeaders) params.unshift(`headers: ${headersJs}`);
  if (r.expectStatus) params.push(`responseCallback: http.expectedStatuses(${r.expectStatus.join(", ")})`);
  const value = (parts: ReturnType<typeof parseTemplate>, prefix = "") =>
    isConstant(parts) ? `${prefix}${templateToJs(parts)}` : `function (c) { return ${prefix}${templateToJs(parts)}; }`;
  const js = `  {
    name: ${q(r.name)},
    method: ${q(r.method)},
    url: ${value(path, "BASE_URL + ")},
    body: ${body === null ? "null" : value(body)},
    headers: ${dynamicHeaders ? `function (c) { return ${headersJs}; }` : "null"},
    params: { ${params.join(", ")} },
    expect: ${r.expectStatus ? q(r.expectStatus) : "null"},
  },`;
  return { js, dynamic: dynamicHeaders || !isConstant(path) || (body !== null && !isConstant(body)) };
}

function thinkTimeJs(t: GeneratedWorkloadSpec["thinkTime"]): string {
  if (t === undefined) return "";
  if (typeof t === "string") return `  sleep(${durationSeconds(t)});\n`;
  const min = durationSeconds(t.min);
  const max = Math.max(min, durationSeconds(t.max));
  return `  sleep(${min} + Math.random() * ${max - min});\n`;
}

/** Everything after the imports and options. */
export function programJs(spec: GeneratedWorkloadSpec): string {
  const pools = spec.pools ?? {};
  const scope: TemplateScope = { pools: new Map(Object.entries(pools).map(([n, p]) => [n, poolFields(p)])), setupVars: new Set() };
  const setup = spec.setup ?? [];

  // Setup requests see what earlier ones captured; the load sees all of it.
  const setupJs = setup.map((step) => {
    const { js } = requestJs(step, scope, spec.requestTimeout, `setup: ${step.name}`);
    for (const name of Object.keys(step.capture ?? {})) {
      if (step.forEach) scope.pools.get(step.forEach)!.add(name);
      else scope.setupVars.add(name);
    }
    return js.replace(/\},$/, `  forEach: ${step.forEach ? q(step.forEach) : "null"},\n    capture: ${q(step.capture ?? {})},\n  },`);
  });
  const compiled = spec.requests.map((r) => requestJs(r, scope, spec.requestTimeout, r.name));
  const requestsJs = compiled.map((r) => r.js);
  // Without templates an iteration needs no context: the plainest workloads cost k6 the least.
  const context = compiled.some((r) => r.dynamic) ? "obContext(data, null)" : "null";

  const every = spec.reconnectEvery ?? 0;
  const closeExpr = every > 0 ? `(exec.vu.iterationInScenario + 1) % ${every} === 0` : "false";
  const body =
    spec.mix === "weighted"
      ? `  obSend(REQUESTS[PICK_REQUEST()], c, ${closeExpr});\n`
      : spec.requests.length === 1
        ? `  obSend(REQUESTS[0], c, ${closeExpr});\n`
        : `  var close = ${closeExpr};\n  for (var i = 0; i < REQUESTS.length; i++) obSend(REQUESTS[i], c, close && i === REQUESTS.length - 1);\n`;

  return `// Data pools: rows and how a key is chosen (one row per pool per iteration).
const POOLS = {
${Object.entries(pools)
  .map(([n, p]) => poolJs(n, p))
  .join("\n")}
};
const PICKERS = {};
for (const name in POOLS) {
  PICKERS[name] = obPicker(POOLS[name].size, POOLS[name].choice, Math.random, function () {
    try { return exec.scenario.iterationInTest; } catch (e) { return (obSetupCounter = obSetupCounter + 1); }
  });
}
var obSetupCounter = -1;

// The iteration context templates read: row(pool), vars (captured in setup), vu, iter, random.
function obContext(data, fixed) {
  return {
    data: data, fixed: fixed, rows: {}, vars: (data && data.vars) || {}, random: Math.random, row: obRow,
    get vu() { try { return exec.vu.idInTest; } catch (e) { return 0; /* setup() has no VU */ } },
    get iter() { try { return exec.vu.iterationInScenario; } catch (e) { return 0; } },
  };
}

// One row per pool per iteration (or the row a setup request is sent for), with what setup captured for it.
function obRow(pool) {
  if (this.rows[pool]) return this.rows[pool];
  var i = this.fixed && this.fixed.pool === pool ? this.fixed.index : PICKERS[pool]();
  var base = POOLS[pool].row(i);
  var extra = this.data && this.data.rows && this.data.rows[pool] && this.data.rows[pool][i];
  return (this.rows[pool] = extra ? Object.assign({}, base, extra) : base);
}

function obSend(r, c, close) {
  var params = r.params;
  if (r.headers || close) {
    var headers = r.headers ? r.headers(c) : Object.assign({}, r.params.headers);
    if (close) headers["Connection"] = "close";
    params = Object.assign({}, r.params, { headers: headers });
  }
  var url = typeof r.url === "function" ? r.url(c) : r.url;
  var body = typeof r.body === "function" ? r.body(c) : r.body;
  var res = http.request(r.method, url, body, params);
  if (r.expect) {
    var checks = {};
    checks[r.name + " status " + r.expect.join("|")] = function (x) { return r.expect.indexOf(x.status) >= 0; };
    check(res, checks);
  }
  return res;
}

const REQUESTS = [
${requestsJs.join("\n")}
];
${spec.mix === "weighted" ? `const PICK_REQUEST = obWeighted(${q(spec.requests.map((r) => r.weight ?? 1))}, Math.random);\n` : ""}${setup.length ? setupFunctionJs(setupJs) : ""}
export default function (data) {
  var c = ${context};
${body}${thinkTimeJs(spec.thinkTime)}}
`;
}

function setupFunctionJs(stepsJs: string[]): string {
  return `
const SETUP = [
${stepsJs.join("\n")}
];

// Runs once before the load: each request must succeed (expectStatus, default 200-399),
// and what it captures is handed to every VU.
function obSetupSend(s, c, label) {
  var res = obSend(s, c, false);
  var ok = s.expect ? s.expect.indexOf(res.status) >= 0 : res.status >= 200 && res.status < 400;
  if (!ok) fail("setup request " + label + " failed: status " + res.status + (res.error ? " (" + res.error + ")" : ""));
  var out = {};
  for (var name in s.capture) {
    var v;
    try { v = res.json(s.capture[name]); } catch (e) { fail("setup request " + label + ": the response is not JSON, cannot capture " + name); }
    if (v === undefined || v === null) fail("setup request " + label + ": the response has nothing at " + JSON.stringify(s.capture[name]) + " to capture as " + name);
    out[name] = v;
  }
  return out;
}

export function setup() {
  var data = { vars: {}, rows: {} };
  for (var n = 0; n < SETUP.length; n++) {
    var s = SETUP[n];
    if (s.forEach) {
      var pool = s.forEach;
      data.rows[pool] = data.rows[pool] || [];
      for (var i = 0; i < POOLS[pool].size; i++) {
        var got = obSetupSend(s, obContext(data, { pool: pool, index: i }), JSON.stringify(s.name) + " (" + pool + " row " + i + ")");
        data.rows[pool][i] = Object.assign(data.rows[pool][i] || {}, got);
      }
    } else {
      Object.assign(data.vars, obSetupSend(s, obContext(data, null), JSON.stringify(s.name)));
    }
  }
  return data;
}
`;
}
