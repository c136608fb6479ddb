// The template language of request paths, headers and bodies. Small on purpose
// (docs/workloads.md): `{{ expression }}` where the expression is one of
//   POOL.FIELD            a field of this iteration's row of a data pool ({{user.id}})
//   setup.NAME            a value captured by a setup request ({{setup.token}})
//   env.NAME              an environment variable of the k6 process
//   randomInt A B         a uniform integer in [A, B]
//   randomString N        N random letters and digits
//   payload N             exactly N bytes ("xxx..."), for payload-size sweeps
//   uuid | vu | iteration | timestamp
// Templates are compiled to JavaScript when the script is generated, so a typo
// is refused before anything runs, and the script does no parsing per request.

export interface TemplateScope {
  /** Pool name -> the fields its rows have. */
  pools: Map<string, Set<string>>;
  /** Names captured by setup requests (without forEach) that this template may use. */
  setupVars: Set<string>;
}

export type TemplatePart =
  | { type: "text"; text: string }
  | { type: "pool"; pool: string; field: string }
  | { type: "setup"; name: string }
  | { type: "env"; name: string }
  | { type: "randomInt"; min: number; max: number }
  | { type: "randomString"; length: number }
  | { type: "payload"; bytes: number }
  | { type: "uuid" | "vu" | "iteration" | "timestamp" };

export class TemplateError extends Error {}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INT = /^-?\d+$/;

function parseExpression(expr: string, scope: TemplateScope): TemplatePart {
  const words = expr.trim().split(/\s+/).filter(Boolean);
  const [head, ...args] = words;
  const whole = `{{${expr}}}`;
  if (!head) throw new TemplateError(`empty template "${whole}"`);
  const ints = (n: number, what: string) => {
    if (args.length !== n || !args.every((a) => INT.test(a))) throw new TemplateError(`"${whole}": ${head} takes ${what}`);
    return args.map(Number);
  };
  switch (head) {
    case "randomInt": {
      const [min, max] = ints(2, "two integers, e.g. {{randomInt 1 100}}") as [number, number];
      if (min > max) throw new TemplateError(`"${whole}": the first bound must not exceed the second`);
      return { type: "randomInt", min, max };
    }
    case "randomString": {
      const [length] = ints(1, "a length, e.g. {{randomString 8}}") as [number];
      if (length < 1 || length > 100_000) throw new TemplateError(`"${whole}": length must be 1..100000`);
      return { type: "randomString", length };
    }
    case "payload": {
      const [bytes] = ints(1, "a size in bytes, e.g. {{payload 1024}}") as [number];
      if (bytes < 0 || bytes > 10_000_000) throw new TemplateError(`"${whole}": size must be 0..10000000 bytes`);
      return { type: "payload", bytes };
    }
    case "uuid":
    case "vu":
    case "iteration":
    case "timestamp":
      if (args.length) throw new TemplateError(`"${whole}": ${head} takes no arguments`);
      return { type: head };
  }
  if (args.length)
    throw new TemplateError(
      `"${whole}": unknown function "${head}" (known: randomInt, randomString, payload, uuid, vu, iteration, timestamp)`,
    );
  const dot = head.indexOf(".");
  const [left, right] = dot > 0 ? [head.slice(0, dot), head.slice(dot + 1)] : [head, ""];
  if (!IDENT.test(left) || !IDENT.test(right)) {
    throw new TemplateError(
      `"${whole}": expected POOL.FIELD, setup.NAME, env.NAME or a function (randomInt, randomString, payload, uuid, vu, iteration, timestamp)`,
    );
  }
  if (left === "env") return { type: "env", name: right };
  if (left === "setup") {
    if (!scope.setupVars.has(right)) {
      const known = [...scope.setupVars];
      throw new TemplateError(
        `"${whole}": no setup request captures "${right}" before this point${known.length ? ` (captured: ${known.join(", ")})` : ""}`,
      );
    }
    return { type: "setup", name: right };
  }
  const fields = scope.pools.get(left);
  if (!fields) {
    const known = [...scope.pools.keys()];
    throw new TemplateError(`"${whole}": unknown pool "${left}" (${known.length ? `pools: ${known.join(", ")}` : "no pools are defined"})`);
  }
  if (!fields.has(right)) throw new TemplateError(`"${whole}": pool "${left}" has no field "${right}" (fields: ${[...fields].join(", ")})`);
  return { type: "pool", pool: left, field: right };
}

/** Splits a template into text and expressions, checking each against the scope. */
export function parseTemplate(text: string, scope: TemplateScope): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf("{{", at);
    if (open < 0) break;
    const close = text.indexOf("}}", open + 2);
    if (close < 0) throw new TemplateError(`unclosed "{{" at character ${open + 1}`);
    if (open > at) parts.push({ type: "text", text: text.slice(at, open) });
    parts.push(parseExpression(text.slice(open + 2, close), scope));
    at = close + 2;
  }
  if (at < text.length) parts.push({ type: "text", text: text.slice(at) });
  return parts;
}

const q = (s: string) => JSON.stringify(s);

function partToJs(p: TemplatePart): string {
  switch (p.type) {
    case "text":
      return q(p.text);
    case "pool":
      return `c.row(${q(p.pool)})[${q(p.field)}]`;
    case "setup":
      return `c.vars[${q(p.name)}]`;
    case "env":
      return `__ENV[${q(p.name)}]`;
    case "randomInt":
      return `obRandomInt(c.random, ${p.min}, ${p.max})`;
    case "randomString":
      return `obRandomString(c.random, ${p.length})`;
    case "payload":
      return `obPayload(${p.bytes})`;
    case "uuid":
      return "obUuid(c.random)";
    case "vu":
      return "c.vu";
    case "iteration":
      return "c.iter";
    case "timestamp":
      return "Date.now()";
  }
}

/**
 * A JavaScript expression that evaluates the template, given `c` (the iteration
 * context: row(pool), vars, vu, iter, random) and the runtime helpers in scope.
 */
export function templateToJs(parts: TemplatePart[]): string {
  if (parts.length === 0) return '""';
  if (parts.every((p) => p.type === "text")) return q(parts.map((p) => (p as { text: string }).text).join(""));
  return `"" + ${parts.map(partToJs).join(" + ")}`;
}

export const isConstant = (parts: TemplatePart[]) => parts.every((p) => p.type === "text");
