// The local app (OPSBENCH_AUTH=off: nobody signs in, every request is the owner) against DNS rebinding: a web page
// the user visits resolves its own name to 127.0.0.1 and sends requests with `Host: <its name>`. The app answers
// only requests addressed to 127.0.0.1, localhost or [::1]; anything else gets 421 naming the rule.
import http from "node:http";
import { describe, expect, it } from "vitest";
import { testWebUrl } from "../helpers";

function get(path: string, host: string, method = "GET"): Promise<{ status: number; body: string }> {
  const url = new URL(testWebUrl());
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: url.port, path, method, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the auth-off app and the Host header", () => {
  it("refuses a foreign Host (DNS rebinding) on pages and the API", async () => {
    const port = new URL(testWebUrl()).port;
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.nip.io:${port}`, `localhost.evil.example:${port}`]) {
      for (const path of ["/", "/api/v1/runs", "/api/v1/credentials", "/settings"]) {
        const res = await get(path, host);
        expect(res.status, `${host} ${path}`).toBe(421);
        expect(res.body).toContain("OPSBENCH_AUTH=off");
      }
    }
    const post = await get("/api/v1/targets", `evil.example:${port}`, "POST");
    expect(post.status).toBe(421);
  });

  it("answers 127.0.0.1, localhost and [::1] with any port", async () => {
    const port = new URL(testWebUrl()).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "localhost", "LOCALHOST:80"]) {
      const res = await get("/api/v1/runs", host);
      expect(res.status, host).toBe(200);
    }
  });
});
