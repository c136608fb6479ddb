// The local stand-in of a target's image: kwok's pods serve nothing, so the control plane's port-forwards (and the
// runs' endpoints) reach Taewa (benchapps/cpu-loop/node-http) on loopback instead. Resolves once it answers /healthz.
import { spawn } from "node:child_process";
import path from "node:path";

export interface StandIn {
  url: string;
  /** Its process id (the metrics API counts its CPU as the pods'). */
  pid: number | undefined;
  stop(): void;
}

export async function startStandIn(port: number): Promise<StandIn> {
  const child = spawn(process.execPath, ["server.js"], {
    cwd: path.resolve(import.meta.dirname, "../../benchapps/cpu-loop/node-http"),
    env: { PATH: process.env.PATH, PORT: String(port), HOST: "127.0.0.1" },
    stdio: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  const healthy = () =>
    fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
  for (let i = 0; i < 100 && !(await healthy()); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await healthy())) {
    child.kill();
    throw new Error(`the stand-in on port ${port} did not answer /healthz within 10 s`);
  }
  return { url, pid: child.pid, stop: () => child.kill() };
}
