// What each iteration of a generated workload sends: named requests (a
// sequence, or one chosen by weight), data pools with uniform, sequential or
// Zipf key choice, setup requests run once before the load (sign in, seed data),
// think time, and connection handling. Shared by every executor kind.
import { z } from "zod";
import { k6Duration } from "./duration";
import { parseTemplate, TemplateError, type TemplateScope } from "./template";

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a name of letters, digits and '_' (not starting with a digit)");

const httpMethod = z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
const statusList = z.array(z.number().int().min(100).max(599)).min(1).max(50);

export const requestSpec = z
  .object({
    name: z.string().min(1).max(100),
    method: httpMethod.default("GET"),
    /** Path and query, appended to the target's base URL; may hold templates. */
    path: z.string().startsWith("/"),
    /** Request body; may hold templates. */
    body: z.string().max(1_000_000).optional(),
    /** Header values may hold templates. */
    headers: z.record(z.string(), z.string()).default({}),
    /** Relative weight when `mix` is "weighted" (default 1). */
    weight: z.number().positive().max(1_000_000).optional(),
    /** Statuses that count as success (default: k6's 200-399); also checked as a k6 check. */
    expectStatus: statusList.optional(),
  })
  .strict();
export type RequestSpec = z.infer<typeof requestSpec>;

/** Uniform, sequential (iteration n takes row n mod size), or Zipf(s): row 0 the most popular (study 004: s = 1.25). */
export const keyChoice = z.union([z.literal("uniform"), z.literal("sequential"), z.object({ zipf: z.number().gt(0).max(10) }).strict()]);
export type KeyChoice = z.infer<typeof keyChoice>;

const MAX_POOL_ROWS = 1_000_000;

export const poolSpec = z.union([
  z
    .object({
      /** Generated rows: { user: 100, device: 5 } gives 500 rows { user: 1..100, device: 1..5, index: 0..499 }. */
      dimensions: z
        .record(identifier, z.number().int().min(1).max(MAX_POOL_ROWS))
        .refine((d) => Object.keys(d).length >= 1, "name at least one dimension"),
      choice: keyChoice.optional(),
    })
    .strict()
    .refine((p) => Object.values(p.dimensions).reduce((a, b) => a * b, 1) <= MAX_POOL_ROWS, `a pool holds at most ${MAX_POOL_ROWS} rows`),
  z
    .object({
      /** Given rows, e.g. [{ "id": "p-1", "price": 10 }]. */
      rows: z
        .array(z.record(identifier, z.union([z.string(), z.number(), z.boolean()])))
        .min(1)
        .max(100_000),
      choice: keyChoice.optional(),
    })
    .strict(),
]);
export type PoolSpec = z.infer<typeof poolSpec>;

export const setupStep = requestSpec
  .omit({ weight: true })
  .extend({
    /** Sends the request once per row of this pool (e.g. sign in every user); templates read that row. */
    forEach: identifier.optional(),
    /**
     * Values to keep from the JSON response, name -> k6 `res.json()` selector (e.g. "token", "data.id").
     * Without forEach they are read as {{setup.NAME}}; with forEach they become fields of the pool's rows.
     */
    capture: z.record(identifier, z.string().min(1)).optional(),
  })
  .strict();
export type SetupStep = z.infer<typeof setupStep>;

export const thinkTime = z.union([k6Duration, z.object({ min: k6Duration, max: k6Duration }).strict()]);

/** The fields every generated (non-script) workload has, whatever its executor. */
export const programShape = {
  requests: z.array(requestSpec).min(1).max(100),
  /** "sequence" (default): every iteration sends each request in order. "weighted": one request, chosen by weight. */
  mix: z.enum(["sequence", "weighted"]).optional(),
  pools: z.record(identifier, poolSpec).optional(),
  setup: z.array(setupStep).max(50).optional(),
  /** Timeout of k6's setup() (default k6's 60s); seeding many rows may need more. */
  setupTimeout: k6Duration.optional(),
  /** Pause after each iteration: a duration, or uniform between min and max. */
  thinkTime: thinkTime.optional(),
  /** Request timeout; study 000 used one minute. */
  requestTimeout: k6Duration.default("60s"),
  /** A new connection for every request (k6 noConnectionReuse). */
  noConnectionReuse: z.boolean().optional(),
  /** Every K iterations a VU's last request says "Connection: close", so new instances behind a balancer get traffic (study 002). */
  reconnectEvery: z.number().int().min(1).max(1_000_000).optional(),
  /** k6 thresholds, e.g. { "http_req_duration": ["p(95)<500"] }. */
  thresholds: z.record(z.string(), z.array(z.string().min(1))).default({}),
};

export interface ProgramFields {
  requests: RequestSpec[];
  mix?: "sequence" | "weighted";
  pools?: Record<string, PoolSpec>;
  setup?: SetupStep[];
}

export function poolFields(pool: PoolSpec): Set<string> {
  if ("dimensions" in pool) return new Set([...Object.keys(pool.dimensions), "index"]);
  return new Set(pool.rows.flatMap((r) => Object.keys(r)));
}

export interface ProgramIssue {
  path: Array<string | number>;
  message: string;
}

/**
 * Checks what zod's shapes cannot: every template names a known pool, field or
 * captured value; forEach names a pool; weights make sense for the mix.
 * Setup requests see only what earlier setup requests captured.
 */
export function programIssues(spec: ProgramFields): ProgramIssue[] {
  const issues: ProgramIssue[] = [];
  const pools = new Map<string, Set<string>>();
  for (const [name, pool] of Object.entries(spec.pools ?? {})) pools.set(name, poolFields(pool));
  const scope: TemplateScope = { pools, setupVars: new Set() };
  const check = (text: string | undefined, path: Array<string | number>) => {
    if (text === undefined) return;
    try {
      parseTemplate(text, scope);
    } catch (err) {
      if (err instanceof TemplateError) issues.push({ path, message: err.message });
      else throw err;
    }
  };
  const checkRequest = (r: { path: string; body?: string; headers: Record<string, string> }, at: Array<string | number>) => {
    check(r.path, [...at, "path"]);
    check(r.body, [...at, "body"]);
    for (const [h, v] of Object.entries(r.headers)) check(v, [...at, "headers", h]);
  };

  (spec.setup ?? []).forEach((step, i) => {
    if (step.forEach && !pools.has(step.forEach)) {
      issues.push({
        path: ["setup", i, "forEach"],
        message: `unknown pool "${step.forEach}" (${pools.size ? `pools: ${[...pools.keys()].join(", ")}` : "no pools are defined"})`,
      });
      return;
    }
    checkRequest(step, ["setup", i]);
    for (const name of Object.keys(step.capture ?? {})) {
      if (step.forEach) pools.get(step.forEach)!.add(name);
      else scope.setupVars.add(name);
    }
  });
  spec.requests.forEach((r, i) => {
    checkRequest(r, ["requests", i]);
    if (r.weight !== undefined && spec.mix !== "weighted")
      issues.push({ path: ["requests", i, "weight"], message: 'weights need "mix": "weighted"' });
  });
  return issues;
}
