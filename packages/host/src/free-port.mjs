// Free loopback ports for the servers opsbench starts itself (replicas, load balancers, function
// instances). Plain JavaScript so the function proxy, which runs as its own `node` process, uses
// the same choice as the providers.
//
// The port is picked below the kernel's ephemeral range, not with listen(0): a port the kernel
// hands out and we release is, until our child binds it, free for any outgoing connection to take
// as its source port, and under load (the engine opens thousands) one did: the replica failed with
// EADDRINUSE. Ports below the range are never used as source ports.
import { readFileSync } from "node:fs";
import net from "node:net";

const LOWEST = 20_000;

function ephemeralLow() {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 49_152;
  } catch {
    return 49_152; // IANA's ephemeral range, also macOS's
  }
}

function bind(port, host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once("error", () => resolve(null));
    server.listen(port, host, () => {
      const bound = server.address().port;
      server.close(() => resolve(bound));
    });
  });
}

/** A port nothing listens on at `host`, outside the ephemeral range when the range leaves room. */
export async function freePort(host = "127.0.0.1") {
  const highest = Math.min(ephemeralLow(), 49_152) - 1;
  for (let attempt = 0; attempt < 64 && highest > LOWEST; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    if ((await bind(port, host)) !== null) return port;
  }
  const port = await bind(0, host);
  if (port === null) throw new Error(`no free TCP port on ${host}`);
  return port;
}
