// `opsbench workload ...`: print a saved workload or its compiled k6 script,
// and list, print or save the presets of packages/core (docs/workloads.md).
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import {
  compileK6Script,
  findPreset,
  formatDuration,
  loadProfile,
  plannedSeconds,
  rateDependsOnRun,
  resolveRate,
  UnresolvedRateError,
  workloadInput,
  WORKLOAD_PRESETS,
  workloadSpec,
  type PresetWorkload,
  type WorkloadSpec,
} from "@opsbench/core";
import { createDb, defaultWorkspaceId, NotFoundError, workspaceScope, type WorkspaceScope } from "@opsbench/db";
import { loadEnv } from "./env";

interface Io {
  say: (m: string) => void;
  usageError: (m: string) => Error;
}

export const WORKLOAD_USAGE = `  opsbench workload show NAME [--k6]                          print a workload (--k6: the k6 script it compiles to)
  opsbench workload preset list [--json]                      list the load-profile presets of the five studies
  opsbench workload preset NAME [--time-scale F] [--path P] [--set KEY=VALUE]... [--save NAME]  print (or save) a preset as a workload`;

export async function workloadCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "show") return show(rest, io);
  if (sub === "preset") return rest[0] === "list" ? presetList(rest.slice(1), io) : preset(rest, io);
  throw io.usageError(`unknown command "workload ${sub ?? ""}" (known: workload show, workload preset)`);
}

function parsing<T>(fn: () => T, io: Io): T {
  try {
    return fn();
  } catch (err) {
    throw io.usageError((err as Error).message);
  }
}

async function withScope<T>(fn: (scope: WorkspaceScope) => Promise<T>): Promise<T> {
  const env = loadEnv();
  const db = createDb(env.DATABASE_URL, { max: 2 });
  try {
    return await fn(workspaceScope(db, await defaultWorkspaceId(db)));
  } finally {
    await db.$disconnect();
  }
}

const describeZod = (err: ZodError) => err.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ");

async function show(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parsing(
    () => parseArgs({ args, strict: true, allowPositionals: true, options: { k6: { type: "boolean", default: false } } }),
    io,
  );
  if (positionals.length !== 1) throw io.usageError("workload show needs one workload NAME");
  const name = positionals[0]!;
  return withScope(async (scope) => {
    const row = await scope.workloads.byName(name).catch(async (err) => {
      if (err instanceof NotFoundError) {
        const known = (await scope.workloads.list()).map((w) => w.name);
        throw io.usageError(`unknown workload "${name}" (known: ${known.length ? known.join(", ") : "none yet"})`);
      }
      throw err;
    });
    const parsed = workloadSpec.safeParse(row.spec);
    if (!parsed.success) {
      io.say(`opsbench: workload "${name}" is not valid any more: ${describeZod(parsed.error)}`);
      return 1;
    }
    if (!values.k6) {
      console.log(JSON.stringify({ name: row.name, spec: parsed.data }, null, 2));
      return 0;
    }
    const spec = await resolveFromRun(parsed.data, scope);
    try {
      process.stdout.write(compileK6Script(spec));
      return 0;
    } catch (err) {
      if (err instanceof UnresolvedRateError) {
        io.say(`opsbench: ${err.message}; run ${rateDependsOnRun(spec)!.runId} has no measured maximum yet`);
        return 1;
      }
      throw err;
    }
  });
}

/** A rate given as a share of another run's maximum is shown as that run's result makes it. */
async function resolveFromRun(spec: WorkloadSpec, scope: WorkspaceScope): Promise<WorkloadSpec> {
  const dep = rateDependsOnRun(spec);
  if (!dep) return spec;
  const ref = await scope.runs.measuredMax(dep.runId, dep.request).catch(() => null);
  return ref?.maxThroughputRps && ref.iterations > 0 && ref.requests > 0 && ref.saturation.saturated
    ? resolveRate(spec, {
        maxThroughputRps: ref.maxThroughputRps,
        requests: ref.requests,
        iterations: ref.iterations,
        saturation: ref.saturation,
      })
    : spec;
}

async function presetList(args: string[], io: Io): Promise<number> {
  const { values } = parsing(() => parseArgs({ args, strict: true, options: { json: { type: "boolean", default: false } } }), io);
  const rows = WORKLOAD_PRESETS.map((p) => {
    const built = p.build(p.example);
    return {
      name: p.name,
      study: p.study,
      description: p.description,
      workloads: built.length,
      plannedSeconds: plannedSeconds(built[0]!.spec),
    };
  });
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) {
    const length = r.workloads > 1 ? `${r.workloads} workloads` : r.plannedSeconds ? formatDuration(r.plannedSeconds) : "";
    console.log(`${r.name.padEnd(width)}  study ${r.study.padEnd(7)}  ${length.padEnd(12)}  ${r.description}`);
  }
  return 0;
}

/** `--set key=value`: the value as JSON when it parses (numbers, lists), else as text. */
function setting(text: string, io: Io): [string, unknown] {
  const eq = text.indexOf("=");
  if (eq <= 0) throw io.usageError(`--set needs KEY=VALUE, not "${text}"`);
  const raw = text.slice(eq + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    /* plain text */
  }
  return [text.slice(0, eq), value];
}

async function preset(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parsing(
    () =>
      parseArgs({
        args,
        strict: true,
        allowPositionals: true,
        options: {
          "time-scale": { type: "string" },
          path: { type: "string" },
          set: { type: "string", multiple: true },
          save: { type: "string" },
        },
      }),
    io,
  );
  if (positionals.length !== 1) throw io.usageError("workload preset needs one preset NAME, or list");
  const p = findPreset(positionals[0]!);
  if (!p) throw io.usageError(`unknown preset "${positionals[0]}" (known: ${WORKLOAD_PRESETS.map((x) => x.name).join(", ")})`);

  const params: Record<string, unknown> = Object.fromEntries((values.set ?? []).map((s) => setting(s, io)));
  if (values["time-scale"] !== undefined) {
    const f = Number(values["time-scale"]);
    if (!Number.isFinite(f) || f <= 0) throw io.usageError(`--time-scale must be a number above 0, not "${values["time-scale"]}"`);
    params.timeScale = f;
  }
  if (values.path !== undefined) params.requests = [{ name: "request", method: "GET", path: values.path }];

  let built: PresetWorkload[];
  try {
    built = p.build(params);
  } catch (err) {
    if (err instanceof ZodError) throw io.usageError(`preset ${p.name}: ${describeZod(err)}`);
    throw err;
  }

  if (values.save === undefined) {
    const out = built.map((w) => ({ name: w.name, spec: w.spec, ...(w.repetitions ? { repetitions: w.repetitions } : {}) }));
    console.log(JSON.stringify(out.length === 1 ? out[0] : out, null, 2));
    return 0;
  }
  const base = values.save;
  const inputs = built.map((w) => ({ name: built.length === 1 ? base : `${base}-${w.name.slice(p.name.length + 1)}`, spec: w.spec }));
  for (const input of inputs) {
    const r = workloadInput.safeParse(input);
    if (!r.success) throw io.usageError(`cannot save "${input.name}": ${describeZod(r.error)}`);
  }
  await withScope(async (scope) => {
    for (const input of inputs) await scope.workloads.put(workloadInput.parse(input));
  });
  for (const input of inputs) {
    const seconds = plannedSeconds(input.spec);
    const peak = Math.max(0, ...loadProfile(input.spec).map((pt) => pt.vus ?? pt.rate ?? 0));
    console.log(
      `saved workload ${input.name} (${input.spec.kind}${seconds ? `, ${formatDuration(seconds)}` : ""}${peak ? `, peak ${peak}` : ""})`,
    );
  }
  return 0;
}
