// npm run bench:sandbox [-- --rounds 5 --seconds 10 --vus 20 --starts 7]
//
// What does the k6 sandbox (docs/security.md) cost? Against the Go echo
// benchapp, alternating k6 sandboxed (bubblewrap + its own network namespace
// through nftables DNAT) and k6 as a plain process, it prints:
// - start: wall time of a one-request run (runK6, whole: namespace, bwrap, k6, exit)
//   and of `k6 inspect` (script validation, and the deadline's planned duration);
// - throughput: req/s of a --seconds run at --vus VUs with opsbench's output.
// Medians with min and max over the trials.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { compileK6Script, workloadSpec } from "@opsbench/core";
import { runK6 } from "../../runner/src/k6-process";
import { type K6SandboxSettings, STRICT_SANDBOX } from "../../runner/src/k6-sandbox";
import { validateScriptSource } from "../../runner/src/inspect";
import { args, env, median, pinning, startEchoServer } from "./bench-support";

const opt = args({ rounds: 5, seconds: 10, vus: 20, starts: 7 });
const workDir = mkdtempSync(path.join(os.tmpdir(), "opsbench-sandbox-bench-"));
const variants: Record<string, K6SandboxSettings> = {
  sandboxed: STRICT_SANDBOX,
  plain: { ...STRICT_SANDBOX, allowUnsandboxed: true, off: true },
};

const load = (spec: unknown) => compileK6Script(workloadSpec.parse(spec));
const oneRequest = load({ kind: "shared-iterations", vus: 1, iterations: 1, requests: [{ name: "echo", path: "/?input=x" }] });
const steady = load({
  kind: "constant-vus",
  vus: opt.vus,
  duration: `${opt.seconds}s`,
  gracefulStop: "0s",
  requests: [{ name: "echo", path: "/?input=opsbench" }],
});

async function k6Run(url: string, sandbox: K6SandboxSettings, script: string) {
  const t0 = performance.now();
  const result = await runK6({
    binary: env.OPSBENCH_ENGINE,
    workDir,
    script,
    env: { OPSBENCH_BASE_URL: url },
    signal: new AbortController().signal,
    onLine: () => {},
    sandbox,
    ...(pinning ? { cpuList: pinning.k6 } : {}),
  });
  if (result.exitCode !== 0) throw new Error(`k6 exited ${result.exitCode}: ${result.outputTail}`);
  const rate = (result.summary as { metrics: { http_reqs: { rate: number } } }).metrics.http_reqs.rate;
  return { ms: performance.now() - t0, rate };
}

const fmt = (xs: number[], digits = 0) =>
  `median ${median(xs).toFixed(digits)} (min ${Math.min(...xs).toFixed(digits)}, max ${Math.max(...xs).toFixed(digits)}, n=${xs.length})`;

const echo = await startEchoServer();
try {
  console.log(
    `bench:sandbox: k6 ${env.OPSBENCH_ENGINE.split("/").at(-2)}, ${os.cpus().length} cores, ${pinning ? `k6 on CPU ${pinning.k6}, target on CPU ${pinning.target}` : "no pinning"}`,
  );
  const starts: Record<string, number[]> = { sandboxed: [], plain: [] };
  const inspects: Record<string, number[]> = { sandboxed: [], plain: [] };
  for (let i = 0; i < opt.starts; i++) {
    for (const [name, sandbox] of Object.entries(variants)) {
      starts[name]!.push((await k6Run(echo.url, sandbox, oneRequest)).ms);
      const t0 = performance.now();
      const inspected = await validateScriptSource(env.OPSBENCH_ENGINE, steady, { sandbox });
      if (!inspected.ok) throw new Error(inspected.message);
      inspects[name]!.push(performance.now() - t0);
    }
  }
  for (const name of Object.keys(variants)) {
    console.log(`start, one-request run (ms), ${name}: ${fmt(starts[name]!)}`);
    console.log(`k6 inspect (ms), ${name}: ${fmt(inspects[name]!)}`);
  }
  const rates: Record<string, number[]> = { sandboxed: [], plain: [] };
  const ratios: number[] = [];
  for (let i = 0; i < opt.rounds; i++) {
    // Alternate which goes first, so drift in the machine's load does not favour one.
    const order = i % 2 ? ["plain", "sandboxed"] : ["sandboxed", "plain"];
    const got: Record<string, number> = {};
    for (const name of order) got[name] = (await k6Run(echo.url, variants[name]!, steady)).rate;
    rates.sandboxed!.push(got.sandboxed!);
    rates.plain!.push(got.plain!);
    ratios.push(got.sandboxed! / got.plain!);
  }
  for (const name of Object.keys(variants)) console.log(`req/s, ${opt.vus} VUs, ${opt.seconds} s, ${name}: ${fmt(rates[name]!)}`);
  console.log(`sandboxed / plain req/s per round: ${fmt(ratios, 3)}`);
} finally {
  await echo.stop();
}
