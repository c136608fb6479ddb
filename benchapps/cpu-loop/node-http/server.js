// "Taewa" (study 002): Node's built-in http only. GET /?n=N multiplies N random
// numbers and returns the result trimmed to 44 characters, so every response
// has the same size. n defaults to 20000 (the study's "default" difficulty).
import http from "node:http";

const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? "127.0.0.1";
const defaultN = Number(process.env.TAEWA_DEFAULT_N ?? 20000);

function work(n) {
  let result = 1;
  for (let i = 0; i < n; i++) result *= Math.random() + 0.5;
  return String(result).padEnd(44, "0").slice(0, 44);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
    return;
  }
  if (url.pathname !== "/") {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
    return;
  }
  const raw = url.searchParams.get("n");
  const n = raw === null ? defaultN : Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 10_000_000) {
    res.writeHead(400, { "content-type": "text/plain" });
    res.end("n must be an integer from 0 to 10000000");
    return;
  }
  res.writeHead(200, { "content-type": "text/plain" });
  res.end(work(n));
});

server.keepAliveTimeout = 65_000;
server.listen(port, host, () => {
  console.log(`taewa listening on http://${host}:${port}`);
});
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
