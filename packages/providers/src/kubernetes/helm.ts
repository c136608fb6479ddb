// A target's Helm chart rendered by the real helm (`helm template`, pinned and built by apps/worker/helm-build/build.mjs)
// into documents that then go through exactly the checks, the permission gate, the apply and the readiness waits of
// manifests (manifests.ts). helm runs with an environment of PATH alone and HOME in a throwaway folder, no kubeconfig
// and nothing of the worker's, its hooks left out, within a time limit, an output cap and a memory limit (docs/security.md).
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { KubernetesSpec } from "@opsbench/core";
import { ProviderError } from "../provider";

export const HELM_RELEASE = "app";
const TIME_LIMIT_MS = 30_000;
const OUTPUT_CAP_BYTES = 4 * 1024 * 1024;
/**
 * helm's address space, MB (RLIMIT_AS through prlimit, as the runner limits k6): a template can allocate without bound
 * (`repeat 1000000000 "x"`) inside the worker's machine. Go needs about 900 MB of address space to start helm at all;
 * 1536 leaves a chart some 600 MB, far more than 4 MiB of output needs.
 */
export const HELM_MEMORY_MB = 1536;
/** Where helm may find programs (it runs none for `template`; post-renderers and plugins are not given). */
const HELM_PATH = "/usr/local/bin:/usr/bin:/bin";

type HelmSource = NonNullable<KubernetesSpec["helm"]>;

/** The chart rendered into the run's namespace, as YAML documents; throws a ProviderError saying what helm said. */
export async function renderChart(
  helm: HelmSource,
  namespace: string,
  opts: { binary: string | undefined; signal?: AbortSignal; timeoutMs?: number; maxBytes?: number; memoryMb?: number },
): Promise<string> {
  if (!opts.binary) throw new ProviderError("helm: this worker has no helm (OPSBENCH_HELM; npm run setup builds it)");
  const chart = Buffer.from(helm.chart, "base64");
  if (chart.length < 2 || chart[0] !== 0x1f || chart[1] !== 0x8b)
    throw new ProviderError("helm.chart is not a packaged chart: give `helm package`'s .tgz (gzip), base64");
  const dir = await mkdtemp(path.join(os.tmpdir(), "opsbench-helm-"));
  try {
    const home = path.join(dir, "home");
    await mkdir(home, { mode: 0o700 });
    const chartFile = path.join(dir, "chart.tgz");
    const valuesFile = path.join(dir, "values.json");
    await writeFile(chartFile, chart, { mode: 0o600 });
    // JSON is YAML: helm reads it as a values file.
    await writeFile(valuesFile, JSON.stringify(helm.values ?? {}), { mode: 0o600 });
    const args = [
      "template",
      helm.release ?? HELM_RELEASE,
      chartFile,
      "--namespace",
      namespace,
      "--include-crds",
      "--no-hooks",
      "--skip-tests",
      "--values",
      valuesFile,
    ];
    return await runHelm(opts.binary, args, { cwd: dir, home, ...opts });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runHelm(
  binary: string,
  args: string[],
  opts: { cwd: string; home: string; signal?: AbortSignal; timeoutMs?: number; maxBytes?: number; memoryMb?: number },
): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? TIME_LIMIT_MS;
  const maxBytes = opts.maxBytes ?? OUTPUT_CAP_BYTES;
  const memoryMb = opts.memoryMb ?? HELM_MEMORY_MB;
  return new Promise((resolve, reject) => {
    // Nothing of the worker's environment: no KUBECONFIG, no credentials, no HELM_* settings; helm's own folders in HOME.
    // prlimit sets the limit and execs helm, so the process killed on a deadline is helm itself.
    const child = spawn("prlimit", [`--as=${memoryMb * 1024 * 1024}`, "--", binary, ...args], {
      cwd: opts.cwd,
      env: { PATH: HELM_PATH, HOME: opts.home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let size = 0;
    let err = "";
    let failure: string | null = null;
    const stop = (why: string) => {
      failure ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => stop(`helm template did not finish within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`),
      timeoutMs,
    );
    const onAbort = () => stop("aborted while rendering the chart");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) return stop(`the rendered chart is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`);
      out.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      if (err.length < 4000) err += c.toString();
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new ProviderError(`helm could not be started under prlimit (util-linux), which limits its memory: ${e.message}`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (failure) return reject(new ProviderError(`helm: ${failure}`));
      if (code !== 0 && /^prlimit: failed to execute/m.test(err))
        return reject(new ProviderError(`helm could not be started (${binary}): ${err.trim().split("\n")[0]!.slice(0, 300)}`));
      // Go's own words when an allocation fails, at start or in a template.
      if (code !== 0 && /out of memory|failed to reserve|cannot allocate memory/.test(err))
        return reject(
          new ProviderError(
            `helm ran out of memory rendering the chart: it may use ${memoryMb} MB of address space (docs/security.md, "Helm charts")`,
          ),
        );
      if (code !== 0) {
        const said = err.trim().split("\n").filter(Boolean).slice(-3).join(" / ").slice(0, 600);
        return reject(new ProviderError(`helm template failed (exit ${code}): ${said || "no message"}`));
      }
      resolve(Buffer.concat(out).toString("utf8"));
    });
  });
}
