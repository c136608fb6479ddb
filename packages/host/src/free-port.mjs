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

/** Listens on `port` (0: one the kernel picks); null when it is taken. */
function listenOn(port, host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once("error", () => resolve(null));
    server.listen(port, host, () => resolve(server));
  });
}

/** A port below the ephemeral range (when the range leaves room) that this process now listens on. */
async function holdFreePort(host) {
  const highest = Math.min(ephemeralLow(), 49_152) - 1;
  for (let attempt = 0; attempt < 64 && highest > LOWEST; attempt++) {
    const server = await listenOn(LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1)), host);
    if (server) return server;
  }
  const server = await listenOn(0, host);
  if (!server) throw new Error(`no free TCP port on ${host}`);
  return server;
}

const closeServer = (server) => new Promise((resolve) => server.close(() => resolve()));

/** A port nothing listens on at `host`, outside the ephemeral range when the range leaves room. */
export async function freePort(host = "127.0.0.1") {
  const server = await holdFreePort(host);
  const { port } = server.address();
  await closeServer(server);
  return port;
}

/**
 * A free port held (listened on, so no other freePort caller takes it) until `release()`, for a server started long
 * after the port is chosen: the test web app's port is picked before its worker starts, seconds earlier, and in that
 * gap another file's replica once took it and answered in its place.
 */
export async function reservePort(host = "127.0.0.1") {
  const server = await holdFreePort(host);
  let released = false;
  return {
    port: server.address().port,
    release: async () => {
      if (released) return;
      released = true;
      await closeServer(server);
    },
  };
}
