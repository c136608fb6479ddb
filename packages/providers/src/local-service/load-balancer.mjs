// A round-robin TCP load balancer on loopback, run as its own process so it
// never shares an event loop with the worker. Balances connections (like a
// classic ELB in TCP mode): with keep-alive, each client connection sticks to
// the replica it was given.
//   node load-balancer.mjs LISTEN_PORT BACKEND_PORT [BACKEND_PORT...]
import net from "node:net";

const [listenPort, ...backendPorts] = process.argv.slice(2).map(Number);
if (!listenPort || backendPorts.length === 0 || [listenPort, ...backendPorts].some((p) => !Number.isInteger(p))) {
  console.error("usage: load-balancer.mjs LISTEN_PORT BACKEND_PORT [BACKEND_PORT...]");
  process.exit(2);
}

let next = 0;
const server = net.createServer({ noDelay: true }, (client) => {
  const port = backendPorts[next];
  next = (next + 1) % backendPorts.length;
  const upstream = net.connect({ host: "127.0.0.1", port, noDelay: true });
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close);
  upstream.on("error", close);
  client.on("close", close);
  upstream.on("close", close);
});
server.listen(listenPort, "127.0.0.1", () => console.log(`load balancer on 127.0.0.1:${listenPort} -> ${backendPorts.join(",")}`));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));
