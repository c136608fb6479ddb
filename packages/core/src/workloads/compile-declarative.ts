// A generated workload as data for opsbench-engine's declarative runner, which
// sends the requests natively (no JavaScript per request) with the semantics of
// the k6 script compileK6Script generates (compile-program.ts is the
// specification). Templates travel pre-parsed, so the engine parses none; the
// target's address is read from OPSBENCH_BASE_URL at run time, as in the script.
import { compileK6Options } from "./compile-options";
import { durationSeconds } from "./duration";
import { poolFields, type KeyChoice, type PoolSpec, type RequestSpec, type SetupStep } from "./request-mix";
import { parseTemplate, type TemplatePart, type TemplateScope } from "./template";
import type { GeneratedWorkloadSpec } from "./workload-spec";

/** The first key of every declarative workload file; the engine recognises the format by it. */
export const DECLARATIVE_FORMAT = "declarative/1";

export interface DeclarativeRequest {
  /** The request's name (checks are named after it). */
  name: string;
  /** k6's `name` tag of its samples ("setup: NAME" for setup requests). */
  tag: string;
  method: string;
  /** The path and query, appended to the base URL. */
  path: TemplatePart[];
  body: TemplatePart[] | null;
  /** In the workload's order. */
  headers: Array<{ name: string; value: TemplatePart[] }>;
  /** Statuses that count as success (also checked); null: k6's default 200-399 and no check. */
  expectStatus: number[] | null;
}

export interface DeclarativeLoadRequest extends DeclarativeRequest {
  /** Relative weight in a weighted mix (1 unless given). */
  weight: number;
}

export interface DeclarativeSetupStep extends DeclarativeRequest {
  /** Sent once per row of this pool, null: once. */
  forEach: string | null;
  /** What to keep from the JSON response, in order: name and k6 `res.json()` selector. */
  capture: Array<{ name: string; selector: string }>;
}

export type DeclarativePool = { choice: KeyChoice } & (
  | { dimensions: Array<{ name: string; size: number }> }
  | { rows: Array<Record<string, string | number | boolean>> }
);

export interface DeclarativeProgram {
  requests: DeclarativeLoadRequest[];
  mix: "sequence" | "weighted";
  pools: Record<string, DeclarativePool>;
  setup: DeclarativeSetupStep[];
  /** Seconds of pause after each iteration: fixed, uniform in [min, max], or null for none. */
  thinkTime: number | { min: number; max: number } | null;
  /** Seconds. */
  requestTimeout: number;
  noConnectionReuse: boolean;
  /** Every K iterations a VU's last request says "Connection: close"; 0: never. */
  reconnectEvery: number;
}

export interface DeclarativeWorkload {
  opsbench: typeof DECLARATIVE_FORMAT;
  /** Exactly the generated script's k6 options. */
  options: Record<string, unknown>;
  program: DeclarativeProgram;
}

function request(r: RequestSpec | SetupStep, scope: TemplateScope, tag: string): DeclarativeRequest {
  return {
    name: r.name,
    tag,
    method: r.method,
    path: parseTemplate(r.path, scope),
    body: r.body === undefined ? null : parseTemplate(r.body, scope),
    headers: Object.entries(r.headers).map(([name, value]) => ({ name, value: parseTemplate(value, scope) })),
    expectStatus: r.expectStatus ?? null,
  };
}

function pool(p: PoolSpec): DeclarativePool {
  const choice = p.choice ?? "uniform";
  if ("dimensions" in p) return { choice, dimensions: Object.entries(p.dimensions).map(([name, size]) => ({ name, size })) };
  return { choice, rows: p.rows };
}

function thinkTime(t: GeneratedWorkloadSpec["thinkTime"]): DeclarativeProgram["thinkTime"] {
  if (t === undefined) return null;
  if (typeof t === "string") return durationSeconds(t);
  const min = durationSeconds(t.min);
  return { min, max: Math.max(min, durationSeconds(t.max)) };
}

/** The program part: the same scoping of templates as the script (setup requests see only earlier captures). */
export function declarativeProgram(spec: GeneratedWorkloadSpec): DeclarativeProgram {
  const pools = spec.pools ?? {};
  const scope: TemplateScope = { pools: new Map(Object.entries(pools).map(([n, p]) => [n, poolFields(p)])), setupVars: new Set() };
  const setup = (spec.setup ?? []).map((step): DeclarativeSetupStep => {
    const compiled = request(step, scope, `setup: ${step.name}`);
    const capture = Object.entries(step.capture ?? {}).map(([name, selector]) => ({ name, selector }));
    for (const { name } of capture) {
      if (step.forEach) scope.pools.get(step.forEach)!.add(name);
      else scope.setupVars.add(name);
    }
    return { ...compiled, forEach: step.forEach ?? null, capture };
  });
  return {
    requests: spec.requests.map((r) => ({ ...request(r, scope, r.name), weight: r.weight ?? 1 })),
    mix: spec.mix ?? "sequence",
    pools: Object.fromEntries(Object.entries(pools).map(([n, p]) => [n, pool(p)])),
    setup,
    thinkTime: thinkTime(spec.thinkTime),
    requestTimeout: durationSeconds(spec.requestTimeout),
    noConnectionReuse: spec.noConnectionReuse ?? false,
    reconnectEvery: spec.reconnectEvery ?? 0,
  };
}

/** The JSON text opsbench-engine runs for a generated workload; it starts with {"opsbench":"declarative/1". */
export function compileDeclarativeWorkload(spec: GeneratedWorkloadSpec): string {
  const workload: DeclarativeWorkload = {
    opsbench: DECLARATIVE_FORMAT,
    options: compileK6Options(spec),
    program: declarativeProgram(spec),
  };
  return JSON.stringify(workload);
}
