// "Riwai" (study 002): Taewa's behaviour with Express instead of Node's bare
// http, to tell the framework's cost from Node's. GET /?n=N multiplies N random
// numbers and answers the result trimmed to 44 characters (constant size).
import express from "express";

const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? "127.0.0.1";
const defaultN = Number(process.env.RIWAI_DEFAULT_N ?? 20000);

function work(n) {
  let result = 1;
  for (let i = 0; i < n; i++) result *= Math.random() + 0.5;
  return String(result).padEnd(44, "0").slice(0, 44);
}

const app = express();
app.disable("x-powered-by");
app.disable("etag");

app.get("/healthz", (_req, res) => {
  res.type("text/plain").send("ok");
});

app.get("/", (req, res) => {
  const raw = req.query.n;
  const n = raw === undefined ? defaultN : Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 10_000_000) {
    res.status(400).type("text/plain").send("n must be an integer from 0 to 10000000");
    return;
  }
  res.type("text/plain").send(work(n));
});

app.use((_req, res) => {
  res.status(404).type("text/plain").send("not found");
});

const server = app.listen(port, host, () => {
  console.log(`riwai listening on http://${host}:${port}`);
});
server.on("error", (err) => {
  console.error(`error: ${err.message}`);
  process.exit(1);
});
server.keepAliveTimeout = 65_000;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
