// The containers' healthcheck probe: one HTTP GET over a unix socket, plain JavaScript (node starts it in tens of
// milliseconds; `node --import tsx` took seconds, every 10 s, in two containers). Exit 0 when healthy, else 1, saying why.
//   node packages/jobs/health-probe.mjs worker   the worker's health socket (OPSBENCH_WORKER_HEALTH_SOCKET): its own
//                                                heartbeat in Redis is fresh (apps/worker/src/metrics-server.ts)
//   node packages/jobs/health-probe.mjs runner   the runner's socket (OPSBENCH_RUNNER_SOCKET): it answers, and k6 can be
//                                                sandboxed or the admin allows unsandboxed runs (runner-protocol.ts runnerHealth)
import http from "node:http";

const which = process.argv[2];
const socketPath =
  which === "worker"
    ? process.env.OPSBENCH_WORKER_HEALTH_SOCKET || "/tmp/opsbench-worker-health.sock"
    : which === "runner"
      ? process.env.OPSBENCH_RUNNER_SOCKET || "/run/opsbench-runner/runner.sock"
      : null;
if (!socketPath) {
  console.error('health-probe: say which process: "worker" or "runner"');
  process.exit(2);
}

const req = http.get({ socketPath, path: "/health", timeout: 5_000 }, (res) => {
  let body = "";
  res.setEncoding("utf8");
  res.on("data", (d) => (body += d));
  res.on("end", () => {
    if (res.statusCode !== 200) {
      console.error(`health-probe: ${which} answered ${res.statusCode}: ${body.trim()}`);
      process.exit(1);
    }
    if (which === "runner") {
      let health;
      try {
        health = JSON.parse(body);
      } catch {
        console.error("health-probe: the runner's /health is not JSON");
        process.exit(1);
      }
      if (health.sandboxProblem && !health.allowUnsandboxed) {
        console.error(`health-probe: k6 cannot be sandboxed: ${health.sandboxProblem}`);
        process.exit(1);
      }
    }
    console.log(`health-probe: ${which} healthy`);
    process.exit(0);
  });
});
req.on("timeout", () => req.destroy(new Error("no answer within 5 s")));
req.on("error", (err) => {
  console.error(`health-probe: ${which} does not answer on ${socketPath}: ${err.message}`);
  process.exit(1);
});
