// The echo function of study 001 in Node, beside the Go one (../go): the same
// handler shape, "Hello, input was: X" for GET /?input=X or a POST body.
import http from "node:http";

const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? "127.0.0.1";
const MAX_BODY = 1 << 20;

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end(`Hello, input was: ${url.searchParams.get("input") ?? ""}`);
    return;
  }
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) {
      res.writeHead(413, { "content-type": "text/plain" });
      res.end("body larger than 1 MiB");
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on("end", () => {
    if (res.writableEnded) return;
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end(`Hello, input was: ${Buffer.concat(chunks).toString("utf8")}`);
  });
});

server.keepAliveTimeout = 65_000;
server.on("error", (err) => {
  console.error(`error: ${err.message}`);
  process.exit(1);
});
server.listen(port, host, () => console.log(`echo listening on http://${host}:${port}`));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)));
