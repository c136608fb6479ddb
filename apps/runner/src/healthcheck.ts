// The runner container's healthcheck: exits 0 when the runner answers on its socket and can
// sandbox k6 (or the admin allows unsandboxed runs), 1 otherwise, saying why.
//   node --import tsx apps/runner/src/healthcheck.ts
import http from "node:http";
import { runnerHealth } from "@opsbench/jobs/runner-protocol";
import { loadEnv } from "./env";

async function main(): Promise<number> {
  const env = loadEnv();
  try {
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.get({ socketPath: env.OPSBENCH_RUNNER_SOCKET, path: "/health", timeout: 5_000 }, (res) => {
        let data = "";
        res.on("data", (d) => (data += d));
        res.on("end", () => resolve(data));
      });
      req.on("timeout", () => req.destroy(new Error("no answer within 5 s")));
      req.on("error", reject);
    });
    const health = runnerHealth.parse(JSON.parse(body));
    if (health.sandboxProblem && !health.allowUnsandboxed) {
      console.error(`healthcheck: k6 cannot be sandboxed: ${health.sandboxProblem}`);
      return 1;
    }
    console.log(`healthcheck: runner ${health.hostId} answers, k6 ${health.k6Version}${health.sandboxProblem ? " (unsandboxed)" : ""}`);
    return 0;
  } catch (err) {
    console.error(`healthcheck: the runner does not answer on ${env.OPSBENCH_RUNNER_SOCKET}: ${(err as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
