import type { TargetInput, WorkloadInput } from "@opsbench/core";

/** The demo: study 002's Taewa app as 2 local replicas, hit by a ~1 minute ramping-VU load. */
export const DEMO_TARGET: TargetInput = {
  name: "demo-taewa",
  kind: "local-service",
  spec: { app: "cpu-loop/node-http", replicas: 2, env: {}, startTimeoutMs: 10_000 },
};

export const DEMO_WORKLOAD: WorkloadInput = {
  name: "demo-ramp",
  spec: {
    kind: "ramping-vus",
    startVUs: 0,
    stages: [
      { duration: "15s", target: 10 },
      { duration: "30s", target: 10 },
      { duration: "15s", target: 0 },
    ],
    gracefulRampDown: "5s",
    requestTimeout: "60s",
    requests: [{ name: "taewa", method: "GET", path: "/?n=20000", headers: {} }],
    thresholds: { http_req_failed: ["rate<0.01"] },
  },
};
