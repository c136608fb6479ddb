// MSDBench "Best Effort Pub/Sub" (BEPS, study 003): client -> load balancer (lb)
// -> workers (round-robin; 5 in the study) -> user DB (userdb) + payload DB
// (payloaddb) -> read endpoint (read), which keeps each user's feed. The DBs are
// in memory, each its own service. One program hosts any subset of the services
// (../lib/service-host.mjs), so it runs co-located, tiered or isolated.
//
// The client's API, on the lb:
//   POST   /users                         { name? }  create_user (a 10-character name is made when none is given)
//   DELETE /users/:name                              delete_user
//   POST   /users/:name/subscriptions     { to }     subscribe (idempotent)
//   DELETE /users/:name/subscriptions/:to            unsubscribe (idempotent)
//   POST   /users/:name/messages          { text }   publish: stored once, fanned out to every subscriber's feed
//   GET    /users/:name/feed                          the latest messages of the user's feed (read endpoint)
import { randomBytes } from "node:crypto";
import { RpcError, hostServices, jsonBody, send } from "../lib/service-host.mjs";

const FEED_LENGTH = Number(process.env.BEPS_FEED_LENGTH ?? 100);
const MAX_TEXT = 4096;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function checkName(name, what = "name") {
  if (typeof name !== "string" || !NAME.test(name)) throw new RpcError(400, `${what} must be 1-64 letters, digits, '_' or '-'`);
  return name;
}

// Seed users for loads whose requests are fixed (every VU sends the same path):
// BEPS_SEED_USERS=N creates user0001..userN, each followed by the next
// BEPS_SEED_SUBSCRIPTIONS users. Done inside the user DB before it listens.
function seed(users) {
  const count = Number(process.env.BEPS_SEED_USERS ?? 0);
  if (!(count > 0)) return;
  const perUser = Math.min(Number(process.env.BEPS_SEED_SUBSCRIPTIONS ?? 10), count - 1);
  const name = (i) => `user${String(i + 1).padStart(4, "0")}`;
  for (let i = 0; i < count; i++) users.set(name(i), { subscriptions: new Set(), subscribers: new Set() });
  for (let i = 0; i < count; i++) {
    for (let k = 1; k <= perUser; k++) {
      const from = name((i + k) % count);
      users.get(from).subscriptions.add(name(i));
      users.get(name(i)).subscribers.add(from);
    }
  }
}

const services = {
  userdb: () => {
    const users = new Map(); // name -> { subscriptions: Set, subscribers: Set }
    seed(users);
    const get = (name) => {
      const u = users.get(name);
      if (!u) throw new RpcError(404, `no user "${name}"`);
      return u;
    };
    return {
      rpc: {
        create: ({ name }) => {
          if (users.has(name)) throw new RpcError(409, `user "${name}" exists`);
          users.set(name, { subscriptions: new Set(), subscribers: new Set() });
          return { name };
        },
        delete: ({ name }) => {
          const u = get(name);
          for (const to of u.subscriptions) users.get(to)?.subscribers.delete(name);
          for (const from of u.subscribers) users.get(from)?.subscriptions.delete(name);
          users.delete(name);
          return { name };
        },
        subscribe: ({ name, to }) => {
          const u = get(name);
          const target = get(to);
          u.subscriptions.add(to);
          target.subscribers.add(name);
          return { name, to, subscriptions: u.subscriptions.size };
        },
        unsubscribe: ({ name, to }) => {
          const u = get(name);
          const removed = u.subscriptions.delete(to);
          users.get(to)?.subscribers.delete(name);
          return { name, to, removed };
        },
        subscribers: ({ name }) => [...get(name).subscribers],
        count: () => users.size,
      },
    };
  },

  payloaddb: () => {
    const messages = new Map(); // id -> { from, text, at }
    let next = 1;
    return {
      rpc: {
        store: ({ from, text }) => {
          const id = next++;
          messages.set(id, { from, text, at: Date.now() });
          return { id };
        },
        get: ({ id }) => messages.get(id) ?? null,
        count: () => messages.size,
      },
    };
  },

  read: () => {
    const feeds = new Map(); // name -> [{ id, from, text }], newest last
    return {
      rpc: {
        append: ({ to, message }) => {
          for (const name of to) {
            const feed = feeds.get(name) ?? [];
            feed.push(message);
            if (feed.length > FEED_LENGTH) feed.splice(0, feed.length - FEED_LENGTH);
            feeds.set(name, feed);
          }
          return { delivered: to.length };
        },
        feed: ({ name }) => feeds.get(name) ?? [],
        drop: ({ name }) => ({ dropped: feeds.delete(name) }),
      },
    };
  },

  worker: ({ call, instance }) => ({
    rpc: {
      create_user: async ({ name }) => ({ ...(await call("userdb", "create", { name })), worker: instance }),
      delete_user: async ({ name }) => {
        await call("userdb", "delete", { name });
        await call("read", "drop", { name });
        return { name, worker: instance };
      },
      subscribe: async ({ name, to }) => ({ ...(await call("userdb", "subscribe", { name, to })), worker: instance }),
      unsubscribe: async ({ name, to }) => ({ ...(await call("userdb", "unsubscribe", { name, to })), worker: instance }),
      // The aggregator: the user DB gives the subscribers, the payload DB keeps the
      // message once, and the read endpoint gets it for every subscriber's feed.
      publish: async ({ name, text }) => {
        const [subscribers, { id }] = await Promise.all([
          call("userdb", "subscribers", { name }),
          call("payloaddb", "store", { from: name, text }),
        ]);
        if (subscribers.length) await call("read", "append", { to: subscribers, message: { id, from: name, text } });
        return { id, delivered: subscribers.length, worker: instance };
      },
    },
  }),

  lb: ({ call }) => ({
    rpc: {},
    http: async (req, res, url, raw) => {
      const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
      if (parts[0] !== "users") return false;
      const [, name, sub, to] = parts;
      const m = req.method;
      if (m === "POST" && parts.length === 1) {
        const body = jsonBody(raw);
        const n = body.name === undefined ? randomBytes(5).toString("hex") : checkName(body.name);
        return send(res, 201, await call("worker", "create_user", { name: n }));
      }
      if (parts.length >= 2) checkName(name);
      if (m === "DELETE" && parts.length === 2) return send(res, 200, await call("worker", "delete_user", { name }));
      if (m === "POST" && parts.length === 3 && sub === "subscriptions") {
        const body = jsonBody(raw);
        return send(res, 200, await call("worker", "subscribe", { name, to: checkName(body.to, "to") }));
      }
      if (m === "DELETE" && parts.length === 4 && sub === "subscriptions") {
        return send(res, 200, await call("worker", "unsubscribe", { name, to: checkName(to, "to") }));
      }
      if (m === "POST" && parts.length === 3 && sub === "messages") {
        const { text } = jsonBody(raw);
        if (typeof text !== "string" || text.length > MAX_TEXT)
          throw new RpcError(400, `text must be a string of at most ${MAX_TEXT} characters`);
        return send(res, 201, await call("worker", "publish", { name, text }));
      }
      if (m === "GET" && parts.length === 3 && sub === "feed") return send(res, 200, await call("read", "feed", { name }));
      return false;
    },
  }),
};

await hostServices({ app: "msd-beps", services, entry: "lb", defaultInstances: { worker: Number(process.env.BEPS_WORKERS ?? 5) } });
