// TCP ports for throw-away servers in tests: one nobody listens on, and waiting until one answers.
import net from "node:net";

// Chosen as the providers choose (below the ephemeral range, where no outgoing connection takes it).
export { freePort, reservePort } from "@opsbench/host/free-port";

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

export async function waitForPort(port: number, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await answers(port))) {
    if (Date.now() > until) throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until nothing listens on the port any more (a stopped server's process may let go of it a moment later). */
export async function waitForPortClosed(port: number, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (await answers(port)) {
    if (Date.now() > until) throw new Error(`something still listens on 127.0.0.1:${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
