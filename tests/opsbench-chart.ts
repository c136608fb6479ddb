// opsbench's own Helm chart (deploy/helm/opsbench) rendered by the pinned helm, for the tests that check it: on the
// control plane (packages/providers/test/kubernetes-charts.test.ts: lint, template, a server-side dry-run of every
// object) and as processes (apps/web/test/health.test.ts: the chart's web and worker commands with its environment).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAllDocuments } from "yaml";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { ensureHelm } from "../apps/worker/helm-build/build.mjs";

const repoRoot = path.resolve(import.meta.dirname, "..");
export const chartDir = path.join(repoRoot, "deploy/helm/opsbench");
export const externalDbValues = path.join(chartDir, "ci/external-db-values.yaml");

/** A rendered object, read loosely: the tests check its shape. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: rendered YAML, checked by the assertions
  spec?: any;
  data?: Record<string, string>;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  // biome-ignore lint/suspicious/noExplicitAny: rendered YAML, checked by the assertions
  securityContext?: any;
}

export const helmBinary = (): string => (ensureHelm({ log: () => {} }) as { binary: string }).binary;

/** helm with nothing of the test's environment: no kubeconfig, its folders in a throwaway HOME. */
export function helm(args: string[]): string {
  const home = mkdtempSync(path.join(os.tmpdir(), "opsbench-helm-home-"));
  try {
    return execFileSync(helmBinary(), args, {
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin", HOME: home, NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "pipe"],
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** `helm template` of the chart (hooks included: the migrate Job and what it needs are objects too). */
export function renderOpsbenchChart(opts: { release?: string; namespace?: string; valuesFiles?: string[] } = {}): KubeObject[] {
  const out = helm([
    "template",
    opts.release ?? "ops",
    chartDir,
    "--namespace",
    opts.namespace ?? "default",
    ...(opts.valuesFiles ?? []).flatMap((f) => ["--values", f]),
  ]);
  return parseAllDocuments(out)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

export function objectOf(objects: KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found)
    throw new Error(`the chart rendered no ${kind} ${name} (it has ${objects.map((o) => `${o.kind} ${o.metadata.name}`).join(", ")})`);
  return found;
}

export function containerOf(deployment: KubeObject, name: string): Container {
  const containers = deployment.spec.template.spec.containers as Container[];
  const found = containers.find((c) => c.name === name);
  if (!found) throw new Error(`${deployment.metadata.name} has no container ${name}`);
  return found;
}

/**
 * A container's environment as Kubernetes would give it: plain values, and secretKeyRefs read from the Secrets the
 * chart rendered (an optional key that is missing is left out, as the kubelet does).
 */
export function resolvedEnv(container: Container, objects: KubeObject[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const v of container.env ?? []) {
    const ref = v.valueFrom?.secretKeyRef;
    if (!ref) {
      env[v.name] = v.value ?? "";
      continue;
    }
    const secret = objects.find((o) => o.kind === "Secret" && o.metadata.name === ref.name);
    const data = secret?.data?.[ref.key];
    if (data === undefined) {
      if (ref.optional) continue;
      throw new Error(`${container.name}'s ${v.name} reads Secret ${ref.name} key ${ref.key}, which the chart did not render`);
    }
    env[v.name] = Buffer.from(data, "base64").toString("utf8");
  }
  return env;
}
