// Runs a composite action's steps as GitHub's runner does, for the Action's test (packed-cli.test.ts): each `run:`
// step's `${{ }}` expressions substituted (inputs with their defaults, github.*, steps.<id>.outputs.*), its `env:`
// the same, run by `bash --noprofile --norc -eo pipefail` (the runner's `shell: bash`) with a GITHUB_OUTPUT file of
// its own, read back into steps.<id>.outputs; the action's outputs evaluated at the end. Only the expression syntax
// the action uses is understood (contexts, string literals, == != && || ! and parentheses): anything else throws,
// so a new construct in action.yml is noticed here rather than passed over.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";

interface ActionYaml {
  inputs?: Record<string, { required?: boolean; default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ id?: string; name?: string; shell?: string; run?: string; env?: Record<string, string> }> };
}

type Value = string | boolean | null;
type Contexts = Record<string, Record<string, unknown>>;

/** Evaluates one expression (the text between `${{` and `}}`). */
export function evaluate(expression: string, contexts: Contexts): Value {
  const tokens = expression.match(/'(?:[^']|'')*'|==|!=|&&|\|\||!|\(|\)|[A-Za-z_][\w.-]*|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  const truthy = (v: Value) => v !== null && v !== false && v !== "";
  const equal = (a: Value, b: Value) => (typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : a === b);
  function primary(): Value {
    const t = next();
    if (t === undefined) throw new Error(`expression "${expression}" ends early`);
    if (t === "(") {
      const v = or();
      if (next() !== ")") throw new Error(`expression "${expression}": ")" expected`);
      return v;
    }
    if (t === "!") return !truthy(primary());
    if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    if (t === "true" || t === "false") return t === "true";
    if (t === "null") return null;
    const [context, ...rest] = t.split(".");
    if (!(context! in contexts)) throw new Error(`expression "${expression}": the context "${context}" is not known here`);
    let v: unknown = contexts[context!];
    for (const key of rest) v = v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;
    if (v === undefined) return null;
    if (typeof v === "string" || typeof v === "boolean") return v;
    throw new Error(`expression "${expression}": ${t} is not a string`);
  }
  function comparison(): Value {
    let v = primary();
    while (peek() === "==" || peek() === "!=") {
      const op = next();
      const r = primary();
      v = op === "==" ? equal(v, r) : !equal(v, r);
    }
    return v;
  }
  function and(): Value {
    let v = comparison();
    while (peek() === "&&") {
      next();
      const r = comparison();
      v = truthy(v) ? r : v;
    }
    return v;
  }
  function or(): Value {
    let v = and();
    while (peek() === "||") {
      next();
      const r = and();
      v = truthy(v) ? v : r;
    }
    return v;
  }
  const v = or();
  if (at !== tokens.length) throw new Error(`expression "${expression}": unexpected "${tokens[at]}"`);
  return v;
}

const asText = (v: Value) => (v === null ? "" : String(v));
export const substitute = (text: string, contexts: Contexts) =>
  text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e: string) => asText(evaluate(e.trim(), contexts)));

/** GITHUB_OUTPUT's two forms: name=value, and name<<DELIMITER ... DELIMITER. */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end < 0) throw new Error(`GITHUB_OUTPUT: no closing ${heredoc[2]} for ${heredoc[1]}`);
      out[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
  }
  return out;
}

export interface ActionResult {
  /** The failing step's exit code (0 when every step passed), or the signal that ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Everything the steps wrote, as the job's log shows it (stdout and stderr interleaved). */
  log: string;
  outputs: Record<string, string>;
}

export interface ActionJob {
  /** The step now running (to signal it, as a cancelled job does). */
  current: () => ChildProcess | null;
  done: Promise<ActionResult>;
}

/**
 * Runs the action in `actionDir` with `inputs` (the step's `with:`), `github` (the github context: event_name,
 * token, ...; action_path is set here) and `env` (the runner's environment: GITHUB_*, PATH, ...).
 */
export function runCompositeAction(
  actionDir: string,
  {
    inputs,
    github,
    env,
    cwd,
  }: { inputs: Record<string, string>; github: Record<string, string>; env: Record<string, string>; cwd: string },
): ActionJob {
  const action = parseYaml(readFileSync(path.join(actionDir, "action.yml"), "utf8")) as ActionYaml;
  if (action.runs.using !== "composite") throw new Error(`${actionDir}: runs.using is ${action.runs.using}, not composite`);
  const githubContext = { ...github, action_path: actionDir };
  const given: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs ?? {})) {
    const value = inputs[name] ?? (spec.default === undefined ? "" : substitute(String(spec.default), { github: githubContext }));
    if (spec.required && !value) throw new Error(`the action's input "${name}" is required`);
    given[name] = value;
  }
  for (const name of Object.keys(inputs)) if (!(name in given)) throw new Error(`the action has no input "${name}"`);
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const work = mkdtempSync(path.join(os.tmpdir(), "opsbench-action-steps-"));
  let current: ChildProcess | null = null;
  let log = "";
  const actionOutputs = () =>
    Object.fromEntries(
      Object.entries(action.outputs ?? {}).map(([k, o]) => [k, substitute(o.value, { inputs: given, github: githubContext, steps })]),
    );
  const done = (async (): Promise<ActionResult> => {
    for (const [i, step] of action.runs.steps.entries()) {
      if (!step.run) throw new Error(`step ${i + 1} (${step.name}) is not a run: step; only those are run here`);
      if (step.shell !== "bash") throw new Error(`step ${i + 1} (${step.name}): shell ${step.shell}, not bash`);
      const contexts: Contexts = { inputs: given, github: githubContext, steps };
      const script = path.join(work, `step-${i + 1}.sh`);
      writeFileSync(script, substitute(step.run, contexts));
      const output = path.join(work, `output-${i + 1}`);
      writeFileSync(output, "");
      const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(String(v), contexts)]));
      log += `##[group]Run ${step.name ?? `step ${i + 1}`}\n`;
      const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
        cwd,
        env: { ...env, ...stepEnv, GITHUB_OUTPUT: output, GITHUB_ACTION_PATH: actionDir },
      });
      current = child;
      child.stdout.on("data", (d) => (log += d));
      child.stderr.on("data", (d) => (log += d));
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.on("close", (c, s) => resolve([c, s])),
      );
      current = null;
      if (step.id) steps[step.id] = { outputs: existsSync(output) ? parseOutputFile(readFileSync(output, "utf8")) : {} };
      // A failed step ends the action; its outputs are still the action's (GitHub evaluates them either way).
      if (code !== 0) return { code, signal, log, outputs: actionOutputs() };
    }
    return { code: 0, signal: null, log, outputs: actionOutputs() };
  })();
  return { current: () => current, done };
}
