// A study's factors besides target x workload (docs/studies.md#factors): replicas (study 001 pinned 1/5/25/50 per
// cell) and node count (studies 000 and 002 sized node pools per run). Each level makes a variant of every target,
// a target of its own named <target>.r<replicas> / .n<nodes>, so a cell stays one target x one workload and every
// page, table and comparison shows the levels side by side. Only kinds that can pin the count take a factor; the
// others are refused naming the target and why.
import { z } from "zod";
import { kindDefinition, type LooseSpec, type Pinned } from "../kinds";
import { targetInput, type TargetInput } from "../kinds/target-schemas";

export const studyFactors = z
  .object({
    /** Fixed replicas (instances) per level: min = max = the level, so the count is the factor, not the load. */
    replicas: z.array(z.number().int().min(1).max(1000)).min(1).max(8).optional(),
    /** Nodes per level: aws-asg's instances; the nodes a kubernetes target's pods are held to (its spec's nodes). */
    nodes: z.array(z.number().int().min(1).max(100)).min(1).max(8).optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    for (const key of ["replicas", "nodes"] as const) {
      const levels = f[key] ?? [];
      levels.forEach((n, i) => {
        if (levels.indexOf(n) !== i) ctx.addIssue({ code: "custom", path: [key, i], message: `${n} is listed twice` });
      });
    }
    if (!f.replicas && !f.nodes)
      ctx.addIssue({ code: "custom", path: [], message: "give replicas or nodes levels (or leave factors out)" });
  });
export type StudyFactors = z.infer<typeof studyFactors>;

/** One combination of levels. */
export type FactorLevel = { replicas?: number; nodes?: number };

/** Every combination of the factors' levels, replicas outer (one empty level without factors). */
export function factorLevels(f: StudyFactors | undefined): FactorLevel[] {
  if (!f) return [{}];
  const replicas: Array<number | undefined> = f.replicas ?? [undefined];
  const nodes: Array<number | undefined> = f.nodes ?? [undefined];
  return replicas.flatMap((r) =>
    nodes.map((n) => ({ ...(r !== undefined ? { replicas: r } : {}), ...(n !== undefined ? { nodes: n } : {}) })),
  );
}

/** The variant's name: <target>.r5, <target>.n3, <target>.r5.n3. */
export const variantName = (name: string, level: FactorLevel) =>
  `${name}${level.replicas !== undefined ? `.r${level.replicas}` : ""}${level.nodes !== undefined ? `.n${level.nodes}` : ""}`;

/** The spec at a level (replicas first, then nodes), or why the kind cannot be pinned there (kinds/: each kind's pin). */
function pinned(kind: string, spec: LooseSpec, level: FactorLevel): Pinned {
  const definition = kindDefinition(kind);
  if (!definition) return `a ${kind} target is not a kind opsbench knows`;
  let out: Pinned = spec;
  if (level.replicas !== undefined) out = definition.pin.replicas(out, level.replicas);
  if (typeof out !== "string" && level.nodes !== undefined) out = definition.pin.nodes(out, level.nodes, level.replicas);
  return out;
}

export interface TargetVariant {
  input: TargetInput;
  /** The target it was made from. */
  base: string;
  level: FactorLevel;
}

/**
 * The variants of one target at every level of the factors, each a full target definition (parsed: a level the
 * kind's schema refuses, e.g. 100 replicas of a local-service, is refused here). Throws a ZodError whose paths start
 * at `path` (the target's place in the study input), which the API answers as a 422.
 */
export function targetVariants(
  target: { name: string; kind: string; spec: unknown },
  factors: StudyFactors,
  path: PropertyKey[],
): TargetVariant[] {
  const issues: z.core.$ZodIssue[] = [];
  const out: TargetVariant[] = [];
  const fail = (message: string, at: PropertyKey[] = []) =>
    issues.push({ code: "custom", path: [...path, ...at], message: `${target.name}: ${message}`, input: undefined });
  for (const level of factorLevels(factors)) {
    const spec = pinned(target.kind, (target.spec ?? {}) as LooseSpec, level);
    if (typeof spec === "string") {
      fail(spec);
      break;
    }
    const name = variantName(target.name, level);
    const parsed = targetInput.safeParse({ name, kind: target.kind, spec });
    if (!parsed.success) {
      for (const i of parsed.error.issues) fail(`at ${variantName("", level).slice(1)}: ${i.message}`, i.path);
      continue;
    }
    out.push({ input: parsed.data, base: target.name, level });
  }
  if (issues.length) throw new z.ZodError(issues);
  return out;
}
