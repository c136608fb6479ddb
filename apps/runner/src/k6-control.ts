// Steers a paused k6 through its REST API (GET/PATCH /v1/status). A sandboxed k6 listens on
// 127.0.0.1 inside its own network namespace, which nothing outside can reach: a small Node process
// started in that namespace (ip netns exec) relays the requests, one JSON line per request and per
// answer. It is started before the resume, so the resume itself costs one loopback request.
import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";
import { k6Status, type K6Status } from "@opsbench/jobs/runner-protocol";
import { z } from "zod";

/** The relay: reads {method, body} lines, answers each with {status, body} (or {error}). */
const RELAY = `
const port = Number(process.argv[1]);
const rl = require("node:readline").createInterface({ input: process.stdin });
rl.on("line", async (line) => {
  const req = JSON.parse(line);
  try {
    const res = await fetch("http://127.0.0.1:" + port + "/v1/status", {
      method: req.method,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: AbortSignal.timeout(5000),
    });
    process.stdout.write(JSON.stringify({ status: res.status, body: await res.json().catch(() => null) }) + "\\n");
  } catch (err) {
    process.stdout.write(JSON.stringify({ error: String(err && err.message || err) }) + "\\n");
  }
});
`;

const statusBody = z.object({ data: z.object({ attributes: k6Status }) });

const answer = z.union([z.object({ status: z.number(), body: z.unknown() }), z.object({ error: z.string() })]);

export class K6Control {
  private child: ChildProcess;
  private answers: Array<(line: string) => void> = [];
  private chain: Promise<unknown> = Promise.resolve();

  constructor(port: number, netns: string | null) {
    const command = [...(netns ? ["ip", "netns", "exec", netns] : []), process.execPath, "-e", RELAY, String(port)];
    this.child = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "ignore"], env: { PATH: process.env.PATH ?? "" } });
    this.child.on("error", () => {});
    readline.createInterface({ input: this.child.stdout! }).on("line", (line) => this.answers.shift()?.(line));
  }

  /** One request at a time, in order. */
  private request(method: "GET" | "PATCH", body?: unknown): Promise<{ status: number; body: unknown }> {
    const next = this.chain.then(
      () =>
        new Promise<{ status: number; body: unknown }>((resolve, reject) => {
          if (this.child.exitCode !== null || !this.child.stdin!.writable) return reject(new Error("the k6 control relay has exited"));
          this.answers.push((line) => {
            const a = answer.safeParse(JSON.parse(line));
            if (!a.success) reject(new Error(`bad answer from the k6 control relay: ${line}`));
            else if ("error" in a.data) reject(new Error(a.data.error));
            else resolve(a.data);
          });
          this.child.stdin!.write(`${JSON.stringify({ method, body })}\n`);
        }),
    );
    this.chain = next.catch(() => {});
    return next;
  }

  /** k6's status, or null while its API does not answer yet. */
  async status(): Promise<K6Status | null> {
    const r = await this.request("GET").catch(() => null);
    const parsed = r && r.status === 200 ? statusBody.safeParse(r.body) : null;
    return parsed?.success ? parsed.data.data.attributes : null;
  }

  /** Resumes the test (PATCH /v1/status paused=false). */
  async resume(): Promise<void> {
    const r = await this.request("PATCH", { data: { type: "status", id: "default", attributes: { paused: false } } });
    if (r.status !== 200) throw new Error(`k6 refused to resume: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  }

  close() {
    this.child.stdin?.end();
    this.child.kill();
  }
}
