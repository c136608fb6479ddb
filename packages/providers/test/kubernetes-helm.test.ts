// The chart renderer (kubernetes/helm.ts) with the pinned helm: values and the run's namespace reach the templates,
// CRDs come along, hooks and tests do not; a failing template, a file that is no packaged chart, an output over the
// cap, a render over the time limit and one over the memory limit are refused with what happened. helm gets PATH and
// HOME (a throwaway folder) and nothing else of the worker's environment, under an address-space limit: shown with a
// stand-in program in helm's place that reports them.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ESM helper without types, shared with the setup script
import { ensureHelm } from "../../../apps/worker/helm-build/build.mjs";
import { HELM_MEMORY_MB, renderChart } from "../src/kubernetes/helm";

const ns = "opsbench-12121212-1212-4121-8121-121212121212";
let helm: string;
let dir: string;

beforeAll(() => {
  helm = (ensureHelm({ log: () => {} }) as { binary: string }).binary;
  dir = mkdtempSync(path.join(os.tmpdir(), "opsbench-helm-test-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A chart of these templates packaged with helm, base64. */
function packaged(name: string, templates: Record<string, string>, extra: Record<string, string> = {}): string {
  const src = path.join(dir, name);
  mkdirSync(path.join(src, "templates"), { recursive: true });
  writeFileSync(path.join(src, "Chart.yaml"), `apiVersion: v2\nname: ${name}\nversion: 1.0.0\n`);
  for (const [f, t] of Object.entries({ ...templates })) writeFileSync(path.join(src, "templates", f), t);
  for (const [f, t] of Object.entries(extra)) {
    mkdirSync(path.dirname(path.join(src, f)), { recursive: true });
    writeFileSync(path.join(src, f), t);
  }
  execFileSync(helm, ["package", src, "--destination", dir], { env: { PATH: "/usr/bin:/bin", HOME: dir } });
  return readFileSync(path.join(dir, `${name}-1.0.0.tgz`)).toString("base64");
}

const configMap =
  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n  namespace: {{ .Release.Namespace }}\ndata:\n  size: {{ .Values.size | quote }}\n";

describe("helm template of a target's chart", () => {
  it("renders with the spec's values, release and the run's namespace; CRDs included, hooks and tests left out", async () => {
    const chart = packaged(
      "shape",
      {
        "cm.yaml": configMap,
        "hook.yaml": 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    "helm.sh/hook": pre-install\n',
        "test.yaml": 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: smoke\n  annotations:\n    "helm.sh/hook": test\n',
      },
      {
        "crds/things.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\n",
      },
    );
    const out = await renderChart({ chart, values: { size: "xl" }, release: "shop" }, ns, { binary: helm });
    expect(out).toContain("kind: CustomResourceDefinition");
    expect(out).toContain(`name: shop-cfg\n  namespace: ${ns}\ndata:\n  size: "xl"`);
    expect(out).not.toContain("migrate");
    expect(out).not.toContain("smoke");
  });

  it("refuses a failing template, a file that is no packaged chart, an output over the cap, a render over the time limit, a missing helm", async () => {
    const failing = packaged("failing", { "cm.yaml": '{{ fail "size must be set" }}' });
    await expect(renderChart({ chart: failing }, ns, { binary: helm })).rejects.toThrow(
      /^helm template failed \(exit 1\): .*size must be set/,
    );
    await expect(renderChart({ chart: Buffer.from("plain text").toString("base64") }, ns, { binary: helm })).rejects.toThrow(
      "helm.chart is not a packaged chart: give `helm package`'s .tgz (gzip), base64",
    );
    const big = packaged("big", { "cm.yaml": configMap.replace("{{ .Values.size | quote }}", '{{ repeat 1200000 "x" | quote }}') });
    await expect(renderChart({ chart: big }, ns, { binary: helm, maxBytes: 1024 * 1024 })).rejects.toThrow(
      "helm: the rendered chart is larger than 1 MiB",
    );
    const shape = packaged("slow", { "cm.yaml": configMap });
    await expect(renderChart({ chart: shape }, ns, { binary: helm, timeoutMs: 1 })).rejects.toThrow(
      "helm: helm template did not finish within 1 ms",
    );
    await expect(renderChart({ chart: shape }, ns, { binary: undefined })).rejects.toThrow("helm: this worker has no helm (OPSBENCH_HELM");
    await expect(renderChart({ chart: shape }, ns, { binary: path.join(dir, "none-such") })).rejects.toThrow(
      /^helm could not be started \(.*none-such\): prlimit: failed to execute .*none-such: No such file or directory/,
    );
  });

  it("renders under a memory limit: a template that allocates without bound is stopped with the limit named", async () => {
    const hungry = packaged("hungry", {
      "cm.yaml": configMap.replace("{{ .Values.size | quote }}", '{{ repeat (int .Values.n) "x" | len | quote }}'),
    });
    // 300 MB of one string: within a machine's memory, so without a limit it renders (the review's worry is the worker's RAM).
    await expect(renderChart({ chart: hungry, values: { n: 300_000_000 } }, ns, { binary: helm, memoryMb: 1024 })).rejects.toThrow(
      'helm ran out of memory rendering the chart: it may use 1024 MB of address space (docs/security.md, "Helm charts")',
    );
    // The same chart asking little renders under the same limit.
    expect(await renderChart({ chart: hungry, values: { n: 10 } }, ns, { binary: helm, memoryMb: 1024 })).toContain('size: "10"');
  });

  it("gives helm PATH and HOME in a throwaway folder only: no KUBECONFIG, no secret of the worker's", async () => {
    const standIn = path.join(dir, "print-env");
    writeFileSync(
      standIn,
      '#!/bin/sh\necho "args: $*"\nenv | sort\necho "home: $(ls -A "$HOME" | wc -l) entries"\necho "address space: $(ulimit -v)"\n',
    );
    chmodSync(standIn, 0o755);
    process.env.KUBECONFIG = path.join(dir, "kubeconfig");
    process.env.OPSBENCH_SECRET_KEY_PROBE = "must-not-leak";
    try {
      const out = await renderChart({ chart: packaged("env", { "cm.yaml": configMap }), values: { size: "s" } }, ns, { binary: standIn });
      const env = out
        .split("\n")
        .filter((l) => /^[A-Z_]+=/.test(l) && !l.startsWith("PWD=") && !l.startsWith("SHLVL=") && !l.startsWith("_="));
      expect(env.map((l) => l.split("=")[0])).toEqual(["HOME", "PATH"]);
      expect(env.find((l) => l.startsWith("HOME="))).toMatch(/^HOME=\/tmp\/opsbench-helm-[^/]+\/home$/);
      expect(out).toContain("home: 0 entries");
      // By default helm may use HELM_MEMORY_MB of address space (ulimit -v counts KiB).
      expect(out).toContain(`address space: ${HELM_MEMORY_MB * 1024}`);
      expect(out).not.toContain("must-not-leak");
      expect(out).toMatch(
        new RegExp(
          `^args: template app \\S+/chart\\.tgz --namespace ${ns} --include-crds --no-hooks --skip-tests --values \\S+/values\\.json$`,
          "m",
        ),
      );
    } finally {
      delete process.env.KUBECONFIG;
      delete process.env.OPSBENCH_SECRET_KEY_PROBE;
    }
  });
});
