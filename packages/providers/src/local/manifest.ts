// benchapp.json: how a benchapp is started, and for multi-service apps which
// services it has and how they are grouped (docs/local-engine.md, "The
// benchapp manifest"). planDomains() turns a placement into processes.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Placement } from "@opsbench/core";
import { ProviderError } from "../provider";

const serviceName = z.string().regex(/^[a-z][a-z0-9-]*$/, "service names use lower-case letters, digits and '-', starting with a letter");
const command = z.array(z.string().min(1)).min(1);

export const benchappManifest = z
  .object({
    description: z.string().optional(),
    command: command.optional(),
    healthPath: z.string().startsWith("/").optional(),
    env: z.record(z.string(), z.string()).default({}),
    entry: serviceName.optional(),
    services: z
      .record(
        serviceName,
        z
          .object({
            healthPath: z.string().startsWith("/"),
            instances: z.number().int().min(1).max(32).default(1),
            command: command.optional(),
          })
          .strict(),
      )
      .optional(),
    tiers: z.array(z.array(serviceName).min(1)).min(1).optional(),
  })
  .passthrough()
  .superRefine((m, ctx) => {
    if (!m.services) {
      if (!m.command) ctx.addIssue({ code: "custom", path: ["command"], message: "a single-service app needs a command" });
      if (!m.healthPath) ctx.addIssue({ code: "custom", path: ["healthPath"], message: "a single-service app needs a healthPath" });
      return;
    }
    const names = Object.keys(m.services);
    if (names.length === 0) ctx.addIssue({ code: "custom", path: ["services"], message: "lists no service" });
    if (!m.entry || !m.services[m.entry])
      ctx.addIssue({ code: "custom", path: ["entry"], message: `must name one of the services (${names.join(", ")})` });
    if (!m.command && names.some((n) => !m.services![n]!.command)) {
      ctx.addIssue({ code: "custom", path: ["command"], message: "needed unless every service has its own command" });
    }
    if (m.tiers) {
      const seen = m.tiers.flat();
      const missing = names.filter((n) => !seen.includes(n));
      const unknown = seen.filter((n) => !names.includes(n));
      const twice = seen.filter((n, i) => seen.indexOf(n) !== i);
      if (missing.length || unknown.length || twice.length) {
        ctx.addIssue({
          code: "custom",
          path: ["tiers"],
          message: `must hold every service exactly once (missing: ${missing.join(",") || "-"}; unknown: ${unknown.join(",") || "-"}; twice: ${twice.join(",") || "-"})`,
        });
      }
    }
  });
export type BenchappManifest = z.infer<typeof benchappManifest>;

export interface LoadedApp {
  dir: string;
  manifest: BenchappManifest;
  /** True when the manifest lists services (study 003's apps). */
  multiService: boolean;
}

export function readManifest(benchappsDir: string, app: string): LoadedApp {
  const dir = path.join(benchappsDir, app);
  const file = path.join(dir, "benchapp.json");
  if (!existsSync(file)) throw new ProviderError(`benchapp "${app}" has no benchapp.json in ${dir}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new ProviderError(`benchapp "${app}": benchapp.json is not valid JSON (${(err as Error).message})`);
  }
  const parsed = benchappManifest.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new ProviderError(`benchapp "${app}": invalid benchapp.json: ${issues}`);
  }
  return { dir, manifest: parsed.data, multiService: !!parsed.data.services };
}

export interface ServiceInstance {
  service: string;
  instance: number;
  healthPath: string;
}

/** One process of a replica: an isolation domain and the service instances it hosts. */
export interface Domain {
  index: number;
  command: string[];
  serves: ServiceInstance[];
}

/** The service a single-service app is known by inside the engine. */
export const MAIN_SERVICE = "main";

/** Which processes a replica of `app` consists of under `placement`. */
export function planDomains(app: LoadedApp, placement: Placement): Domain[] {
  const m = app.manifest;
  if (!m.services) return [{ index: 0, command: m.command!, serves: [{ service: MAIN_SERVICE, instance: 0, healthPath: m.healthPath! }] }];
  const services = m.services;
  const instancesOf = (name: string): ServiceInstance[] =>
    Array.from({ length: services[name]!.instances }, (_, instance) => ({
      service: name,
      instance,
      healthPath: services[name]!.healthPath,
    }));
  let groups: ServiceInstance[][];
  if (placement === "co-located") groups = [Object.keys(services).flatMap(instancesOf)];
  else if (placement === "isolated")
    groups = Object.keys(services)
      .flatMap(instancesOf)
      .map((si) => [si]);
  else {
    if (!m.tiers) throw new ProviderError(`benchapp declares no "tiers" in its benchapp.json, so it cannot be placed tiered`);
    groups = m.tiers.map((tier) => tier.flatMap(instancesOf));
  }
  return groups.map((serves, index) => {
    const names = [...new Set(serves.map((s) => s.service))];
    const own = names.length === 1 ? services[names[0]!]!.command : undefined;
    const cmd = own ?? m.command;
    if (!cmd) throw new ProviderError(`benchapp: no command can host ${names.join(", ")} in one process (give a top-level "command")`);
    return { index, command: cmd, serves };
  });
}

/** `USERDB_URL`-style names for a service. */
export function envName(service: string): string {
  return service.toUpperCase().replace(/-/g, "_");
}
