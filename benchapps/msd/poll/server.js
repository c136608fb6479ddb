// MSDBench poll microbenchmark (study 003): a client service calls a poll service
// that "simply returns" a 64-bit timestamp. The request carries a payload of a
// chosen size (the study: 0, 512, 1024, 2048, 4096, 8192 bytes), so the cost of a
// call between isolation domains, and of serializing its payload, shows.
//   GET /call?size=N[&reply=M]   on the client (the entry): one client -> poll call
//                                 with N payload bytes; the poll service answers M
//                                 bytes (default 8, the study's 64-bit reply).
import { RpcError, hostServices, send } from "../lib/service-host.mjs";

const MAX_SIZE = 1 << 20;

function size(url, name, fallback) {
  const raw = url.searchParams.get(name);
  const n = raw === null ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > MAX_SIZE) throw new RpcError(400, `${name} must be an integer from 0 to ${MAX_SIZE}`);
  return n;
}

const services = {
  poll: () => ({
    rpc: {
      // A 64-bit timestamp (as 8 bytes of hex would be 16: we send the decimal string,
      // padded or cut to the requested reply size).
      poll: ({ payload, reply }) => {
        const t = process.hrtime.bigint().toString();
        const body = reply === 8 ? t.slice(-8).padStart(8, "0") : t.padEnd(reply, "0").slice(0, reply);
        return { received: payload.length, reply: body };
      },
    },
  }),
  client: ({ call }) => ({
    rpc: {},
    http: async (req, res, url) => {
      if (req.method !== "GET" || url.pathname !== "/call") return false;
      const n = size(url, "size", 0);
      const reply = size(url, "reply", 8);
      const out = await call("poll", "poll", { payload: "x".repeat(n), reply });
      return send(res, 200, { size: out.received, reply: out.reply });
    },
  }),
};

await hostServices({ app: "msd-poll", services, entry: "client" });
