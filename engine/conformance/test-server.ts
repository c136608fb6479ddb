// The deterministic HTTP server the conformance scripts talk to. Each case gets its own base URL,
// http://127.0.0.1:PORT/c/<case>, so the server can count the requests of every case apart
// (hits are keyed "METHOD /path", the path without the case prefix and without the query).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The fixed body of GET /json (scripts select parts of it with response.json(selector)). */
export const JSON_BODY = {
  user: { name: "Ada", id: 7 },
  items: [
    { id: 1, name: "a" },
    { id: 2, name: "b" },
    { id: 3, name: "c" },
  ],
  ok: true,
  count: 3,
};

export interface TestServer {
  /** Base URL for one case: its requests are counted under that case's name. */
  baseUrl(caseName: string): string;
  /** "METHOD /path" -> number of requests, for one case. */
  hits(caseName: string): Map<string, number>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    // RFC 6265 allows a value in double quotes (Go's client quotes values with spaces).
    const raw = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    out[part.slice(0, eq).trim()] = decodeURIComponent(raw);
  }
  return out;
}

function send(res: ServerResponse, status: number, body: string | Buffer, type = "text/plain; charset=utf-8") {
  if (res.writableEnded || res.destroyed) return;
  // 204 and 304 responses carry no body.
  if (status === 204 || status === 304) {
    res.writeHead(status);
    res.end();
    return;
  }
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, value: unknown) => send(res, status, JSON.stringify(value), "application/json");

export async function startTestServer(): Promise<TestServer> {
  const counts = new Map<string, Map<string, number>>();

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const m = /^\/c\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m) return send(res, 404, "no case prefix");
    const caseName = decodeURIComponent(m[1]!);
    const prefix = `/c/${m[1]}`;
    const path = m[2] ?? "/";
    const key = `${req.method} ${path}`;
    const caseHits = counts.get(caseName) ?? new Map<string, number>();
    counts.set(caseName, caseHits);
    caseHits.set(key, (caseHits.get(key) ?? 0) + 1);

    const body = await readBody(req);
    const parts = path.split("/").filter(Boolean);

    switch (parts[0]) {
      case "ok":
        return send(res, 200, "ok");
      case "json":
        return sendJson(res, 200, JSON_BODY);
      case "status": {
        const code = Number(parts[1]);
        if (!Number.isInteger(code) || code < 100 || code > 599) return send(res, 400, "bad status");
        return send(res, code, `status ${code}`);
      }
      case "delay": {
        const ms = Math.min(Number(parts[1]) || 0, 10_000);
        const timer = setTimeout(() => send(res, 200, "ok"), ms);
        res.on("close", () => clearTimeout(timer));
        return;
      }
      case "redirect": {
        const n = Number(parts[1]) || 0;
        const next = n > 1 ? `${prefix}/redirect/${n - 1}` : `${prefix}/ok`;
        res.writeHead(302, { Location: next, "Content-Length": 0 });
        return res.end();
      }
      case "bytes": {
        const n = Math.min(Number(parts[1]) || 0, 1 << 20);
        const buf = Buffer.alloc(n);
        for (let i = 0; i < n; i++) buf[i] = i % 256;
        return send(res, 200, buf, "application/octet-stream");
      }
      case "cookies": {
        if (parts[1] === "set") {
          const set = Object.fromEntries(url.searchParams);
          const cookies = Object.entries(set).map(([k, v]) => `${k}=${encodeURIComponent(v)}; Path=/`);
          res.setHeader("Set-Cookie", cookies);
          return sendJson(res, 200, { set });
        }
        return sendJson(res, 200, { cookies: parseCookies(req.headers.cookie) });
      }
      case "echo":
        return sendJson(res, 200, {
          method: req.method,
          path,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body: body.toString("utf8"),
        });
      case "hit":
        return send(res, 200, "hit");
      default:
        return send(res, 404, "not found");
    }
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: (caseName) => `http://127.0.0.1:${port}/c/${encodeURIComponent(caseName)}`,
    hits: (caseName) => counts.get(caseName) ?? new Map(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
