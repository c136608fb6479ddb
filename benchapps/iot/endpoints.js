// The IoT core's endpoints (study 000, section 2.4.2), one handler each, so the
// app runs as one service or as one function per endpoint (FUNCTION=<name>).
// Handlers take ({ params, body, headers, query }) and return [status, json].
import { bearer, signJwt, verifyJwt } from "./jwt.js";
import { checkPassword, hashPassword } from "./passwords.js";

export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const str = (v, name, { optional = false, max = 200 } = {}) => {
  if (v === undefined || v === null) {
    if (optional) return null;
    throw new HttpError(400, `${name} is required`);
  }
  if (typeof v !== "string" || v.length === 0 || v.length > max)
    throw new HttpError(400, `${name} must be a string of 1 to ${max} characters`);
  return v;
};
const intParam = (v, name) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 2_147_483_647) throw new HttpError(400, `${name} must be a positive integer`);
  return n;
};

/** Token makers and checkers for the three kinds of key the platform hands out. */
export function keys(secret) {
  const claims = (headers, typ) => {
    const c = verifyJwt(bearer(headers.authorization), secret);
    if (!c) throw new HttpError(401, "missing or invalid token in the Authorization header");
    if (c.typ !== typ) throw new HttpError(401, `this endpoint wants a ${typ} token, not a ${c.typ ?? "untyped"} one`);
    return c;
  };
  return {
    user: (u) => signJwt({ typ: "user", sub: u.id, role: u.role }, secret),
    device: (d) => signJwt({ typ: "device", sub: d.id, uid: d.user_id }, secret),
    consumer: (c) => signJwt({ typ: "consumer", sub: c.id, uid: c.user_id }, secret),
    claims,
    /** The signed-in user, who must be the one named in the path or the super user. */
    owner(headers, uid) {
      const c = claims(headers, "user");
      if (c.role !== "admin" && c.sub !== uid) throw new HttpError(403, `user ${c.sub} may not act for user ${uid}`);
      return c;
    },
  };
}

export function endpoints({ pool, secret, scryptCost }) {
  const k = keys(secret);
  const device = (d) => ({ ...d, key: k.device(d) });
  const ownDevice = async (uid, did) => {
    const { rowCount } = await pool.query("SELECT 1 FROM devices WHERE id = $1 AND user_id = $2", [did, uid]);
    if (!rowCount) throw new HttpError(404, `user ${uid} has no device ${did}`);
  };

  return [
    {
      name: "users-signin",
      method: "POST",
      path: "/api/users/signin",
      handler: async ({ body }) => {
        const username = str(body.username, "username");
        const password = str(body.password, "password");
        const { rows } = await pool.query("SELECT id, name, username, role, password_hash FROM users WHERE username = $1", [username]);
        const u = rows[0];
        // Hash even for an unknown user, so the answer takes as long either way.
        const ok = await checkPassword(
          password,
          u?.password_hash ?? `scrypt$${scryptCost}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
        );
        if (!u || !ok) throw new HttpError(401, "wrong username or password");
        return [200, { token: k.user(u), user: { id: u.id, name: u.name, username: u.username, role: u.role } }];
      },
    },
    {
      name: "users-get",
      method: "GET",
      path: "/api/users/",
      handler: async ({ headers }) => {
        const c = k.claims(headers, "user");
        if (c.role === "admin") return [200, (await pool.query("SELECT id, name, username, role FROM users ORDER BY id")).rows];
        const { rows } = await pool.query("SELECT id, name, username, role FROM users WHERE id = $1", [c.sub]);
        if (!rows[0]) throw new HttpError(404, `user ${c.sub} no longer exists`);
        return [200, rows[0]];
      },
    },
    {
      name: "users-add",
      method: "POST",
      path: "/api/users/",
      handler: async ({ headers, body }) => {
        if (k.claims(headers, "user").role !== "admin") throw new HttpError(403, "only the super user may add users");
        const role = body.role ?? "user";
        if (role !== "user" && role !== "admin") throw new HttpError(400, 'role must be "user" or "admin"');
        const username = str(body.username, "username", { max: 100 });
        const hash = await hashPassword(str(body.password, "password"), scryptCost);
        const { rows } = await pool
          .query("INSERT INTO users (name, username, password_hash, role) VALUES ($1, $2, $3, $4) RETURNING id, name, username, role", [
            str(body.name ?? username, "name"),
            username,
            hash,
            role,
          ])
          .catch((err) => {
            throw err.code === "23505" ? new HttpError(409, `username "${username}" is taken`) : err;
          });
        return [201, rows[0]];
      },
    },
    {
      name: "devices-add",
      method: "POST",
      path: "/api/users/:uid/devices",
      handler: async ({ params, headers, body }) => {
        const uid = intParam(params.uid, "user id");
        k.owner(headers, uid);
        const { rows } = await pool
          .query(
            "INSERT INTO devices (user_id, name, description) VALUES ($1, $2, $3) RETURNING id, user_id, name, description, created_at",
            [uid, str(body.name, "name"), str(body.description, "description", { optional: true, max: 2000 })],
          )
          .catch((err) => {
            throw err.code === "23503" ? new HttpError(404, `no user ${uid}`) : err;
          });
        return [201, device(rows[0])];
      },
    },
    {
      name: "devices-get",
      method: "GET",
      path: "/api/users/:uid/devices",
      handler: async ({ params, headers }) => {
        const uid = intParam(params.uid, "user id");
        k.owner(headers, uid);
        const { rows } = await pool.query("SELECT id, user_id, name, description, created_at FROM devices WHERE user_id = $1 ORDER BY id", [
          uid,
        ]);
        return [200, rows.map(device)];
      },
    },
    {
      name: "sensors-add",
      method: "POST",
      path: "/api/users/:uid/devices/:did/sensors",
      handler: async ({ params, headers, body }) => {
        const uid = intParam(params.uid, "user id");
        const did = intParam(params.did, "device id");
        k.owner(headers, uid);
        const name = str(body.name, "name");
        await ownDevice(uid, did);
        const { rows } = await pool.query(
          "INSERT INTO sensors (device_id, name, description) VALUES ($1, $2, $3) RETURNING id, device_id, name, description, created_at",
          [did, name, str(body.description, "description", { optional: true, max: 2000 })],
        );
        return [201, rows[0]];
      },
    },
    {
      name: "sensors-get",
      method: "GET",
      path: "/api/users/:uid/devices/:did/sensors",
      handler: async ({ params, headers }) => {
        const uid = intParam(params.uid, "user id");
        const did = intParam(params.did, "device id");
        k.owner(headers, uid);
        await ownDevice(uid, did);
        const { rows } = await pool.query(
          "SELECT id, device_id, name, description, created_at FROM sensors WHERE device_id = $1 ORDER BY id",
          [did],
        );
        return [200, rows];
      },
    },
    {
      name: "consumers-add",
      method: "POST",
      path: "/api/users/:uid/consumers",
      handler: async ({ params, headers, body }) => {
        const uid = intParam(params.uid, "user id");
        k.owner(headers, uid);
        const name = str(body.name, "name");
        const sensorIds = body.sensor_ids ?? [];
        if (!Array.isArray(sensorIds) || sensorIds.some((s) => !Number.isInteger(s)))
          throw new HttpError(400, "sensor_ids must be a list of sensor ids");
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          const { rows: owned } = await client.query(
            "SELECT s.id FROM sensors s JOIN devices d ON d.id = s.device_id WHERE d.user_id = $1 AND s.id = ANY($2::int[])",
            [uid, sensorIds],
          );
          const missing = sensorIds.filter((s) => !owned.some((o) => o.id === s));
          if (missing.length) throw new HttpError(403, `user ${uid} does not own sensor(s) ${missing.join(", ")}`);
          const { rows } = await client
            .query("INSERT INTO consumers (user_id, name, description) VALUES ($1, $2, $3) RETURNING id, user_id, name, description", [
              uid,
              name,
              str(body.description, "description", { optional: true, max: 2000 }),
            ])
            .catch((err) => {
              throw err.code === "23503" ? new HttpError(404, `no user ${uid}`) : err;
            });
          if (sensorIds.length)
            await client.query("INSERT INTO consumer_sensors (consumer_id, sensor_id) SELECT $1, unnest($2::int[])", [
              rows[0].id,
              sensorIds,
            ]);
          await client.query("COMMIT");
          return [201, { ...rows[0], sensor_ids: sensorIds, key: k.consumer(rows[0]) }];
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          throw err;
        } finally {
          client.release();
        }
      },
    },
    {
      // The HTTP gateway: a device posts one or more sensor values with its key.
      name: "gateway",
      method: "POST",
      path: "/api/gateway",
      handler: async ({ headers, body, rawBody }) => {
        const c = k.claims(headers, "device");
        const list = Array.isArray(rawBody) ? rawBody : Array.isArray(body.messages) ? body.messages : [body];
        if (list.length === 0 || list.length > 1000) throw new HttpError(400, "send 1 to 1000 messages");
        const messages = list.map((m, i) => {
          if (!m || !Number.isInteger(m.sensor_id)) throw new HttpError(400, `messages[${i}].sensor_id must be an integer`);
          if (typeof m.value !== "number" || !Number.isFinite(m.value)) throw new HttpError(400, `messages[${i}].value must be a number`);
          const ts = m.timestamp === undefined ? new Date() : new Date(m.timestamp);
          if (Number.isNaN(ts.getTime())) throw new HttpError(400, `messages[${i}].timestamp must be a date or epoch milliseconds`);
          return { sensor: m.sensor_id, value: m.value, ts };
        });
        const sensors = [...new Set(messages.map((m) => m.sensor))];
        const { rows } = await pool.query("SELECT id FROM sensors WHERE device_id = $1 AND id = ANY($2::int[])", [c.sub, sensors]);
        const foreign = sensors.filter((s) => !rows.some((r) => r.id === s));
        if (foreign.length) throw new HttpError(403, `device ${c.sub} has no sensor(s) ${foreign.join(", ")}`);
        await pool.query(
          "INSERT INTO sensor_values (sensor_id, value, ts) SELECT * FROM unnest($1::int[], $2::float8[], $3::timestamptz[])",
          [messages.map((m) => m.sensor), messages.map((m) => m.value), messages.map((m) => m.ts)],
        );
        return [200, { accepted: messages.length }];
      },
    },
    {
      name: "consumers-consume",
      method: "GET",
      path: "/api/consumers/consume/:sensor_id",
      handler: async ({ params, headers, query }) => {
        const c = k.claims(headers, "consumer");
        const sensor = intParam(params.sensor_id, "sensor id");
        const limit = query.has("limit") ? intParam(query.get("limit"), "limit") : 100;
        if (limit > 10_000) throw new HttpError(400, "limit must be at most 10000");
        const { rowCount } = await pool.query("SELECT 1 FROM consumer_sensors WHERE consumer_id = $1 AND sensor_id = $2", [c.sub, sensor]);
        if (!rowCount) throw new HttpError(403, `consumer ${c.sub} has no access to sensor ${sensor}`);
        const { rows } = await pool.query(
          "SELECT value, ts AS timestamp FROM sensor_values WHERE sensor_id = $1 ORDER BY ts DESC, id DESC LIMIT $2",
          [sensor, limit],
        );
        return [200, { sensor_id: sensor, values: rows }];
      },
    },
  ];
}

/** Users are made by the super user; the study's platform had this too. */
export async function ensureAdmin(pool, { username, password, scryptCost }) {
  const { rowCount } = await pool.query("SELECT 1 FROM users WHERE username = $1", [username]);
  if (rowCount) return;
  await pool.query(
    "INSERT INTO users (name, username, password_hash, role) VALUES ($1, $1, $2, 'admin') ON CONFLICT (username) DO NOTHING",
    [username, await hashPassword(password, scryptCost)],
  );
}
