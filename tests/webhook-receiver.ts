// A webhook receiver on loopback for the notification tests (docs/notifications.md), and the signature check a
// receiver does with the documented scheme.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's bytes as received (a binary one: the results export's protobuf). */
  raw: Buffer;
  url: string;
}

/** An HTTP receiver on loopback that answers each request with the next status of `statuses` (the last one repeats). */
export async function receiver(statuses: number[] = [200]): Promise<{ url: string; got: Received[]; close: () => Promise<void> }> {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      got.push({ headers: req.headers, body: raw.toString("utf8"), raw, url: req.url ?? "" });
      res.statusCode = statuses[Math.min(got.length - 1, statuses.length - 1)]!;
      res.end(res.statusCode >= 400 ? "receiver says no" : "ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, got, close: () => new Promise((r) => server.close(() => r())) };
}

/** What a receiver does with the documented scheme: HMAC-SHA256 of "<timestamp>.<body>" with the secret, compared in constant time. */
export function signatureVerifies(r: Received, secret: string): boolean {
  const timestamp = String(r.headers["x-opsbench-timestamp"] ?? "");
  const given = String(r.headers["x-opsbench-signature"] ?? "");
  const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${r.body}`).digest("hex")}`;
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
