// The study's data set: 100 users x 5 devices x 1 sensor, here with one consumer
// per user (granted that user's sensors) and a few values per sensor, so every
// endpoint has something to answer. Ids are fixed (users 1001..1100, devices and
// sensors 1001..1500, consumers 1001..1100), so a load whose requests are fixed
// (workload.json) can name them. Seeding twice changes nothing.
//   node seed.js            (same environment as the server: IOT_DATABASE_URL...)
//   POST /admin/seed        (as the super user)
import { fileURLToPath } from "node:url";
import { keys } from "./endpoints.js";
import { hashPassword } from "./passwords.js";

export const SEED = { users: 100, devicesPerUser: 5, sensorsPerDevice: 1, valuesPerSensor: 10, firstId: 1001 };

export const seededUser = (i) => ({ id: SEED.firstId + i, username: `user${i + 1}`, password: `password${i + 1}` });

export async function seedDatabase(pool, { secret, scryptCost }) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // One seeder at a time; the others find the work done.
    await client.query("SELECT pg_advisory_xact_lock(4200000043)");
    const done = await client.query("SELECT 1 FROM users WHERE id = $1", [SEED.firstId]);
    if (!done.rowCount) {
      const users = Array.from({ length: SEED.users }, (_, i) => seededUser(i));
      const hashes = await Promise.all(users.map((u) => hashPassword(u.password, scryptCost)));
      await client.query(
        "INSERT INTO users (id, name, username, password_hash, role) SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[])",
        [
          users.map((u) => u.id),
          users.map((u) => `User ${u.username.slice(4)}`),
          users.map((u) => u.username),
          hashes,
          users.map(() => "user"),
        ],
      );
      const devices = users.flatMap((u, i) =>
        Array.from({ length: SEED.devicesPerUser }, (_, d) => ({
          id: SEED.firstId + i * SEED.devicesPerUser + d,
          user: u.id,
          name: `device-${d + 1}`,
        })),
      );
      await client.query("INSERT INTO devices (id, user_id, name) SELECT * FROM unnest($1::int[], $2::int[], $3::text[])", [
        devices.map((d) => d.id),
        devices.map((d) => d.user),
        devices.map((d) => d.name),
      ]);
      // One sensor per device, with the device's id.
      await client.query("INSERT INTO sensors (id, device_id, name) SELECT id, id, 'temperature' FROM devices WHERE id >= $1", [
        SEED.firstId,
      ]);
      await client.query(
        "INSERT INTO consumers (id, user_id, name) SELECT id, id, 'dashboard' FROM users WHERE id >= $1 AND role = 'user'",
        [SEED.firstId],
      );
      await client.query(
        "INSERT INTO consumer_sensors (consumer_id, sensor_id) SELECT d.user_id, s.id FROM sensors s JOIN devices d ON d.id = s.device_id WHERE d.user_id >= $1",
        [SEED.firstId],
      );
      await client.query(
        `INSERT INTO sensor_values (sensor_id, value, ts)
         SELECT s.id, 20 + (s.id % 7) + n / 10.0, now() - n * interval '1 minute' FROM sensors s, generate_series(1, $2::int) n WHERE s.id >= $1`,
        [SEED.firstId, SEED.valuesPerSensor],
      );
      // Later inserts without an id must not collide with the fixed ones.
      for (const t of ["users", "devices", "sensors", "consumers"]) {
        await client.query(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), GREATEST((SELECT max(id) FROM ${t}), 1))`);
      }
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
  const last = SEED.firstId + SEED.users * SEED.devicesPerUser - 1;
  const counts = (
    await pool.query(
      `SELECT (SELECT count(*) FROM users WHERE id BETWEEN $1 AND $2)::int AS users,
            (SELECT count(*) FROM devices WHERE id BETWEEN $1 AND $3)::int AS devices,
            (SELECT count(*) FROM sensors WHERE id BETWEEN $1 AND $3)::int AS sensors`,
      [SEED.firstId, SEED.firstId + SEED.users - 1, last],
    )
  ).rows[0];
  const k = keys(secret);
  const first = seededUser(0);
  // Keys of the first seeded user, device and consumer: what workload.json uses.
  return {
    ...counts,
    sample: {
      user: { id: first.id, username: first.username, password: first.password, token: k.user({ id: first.id, role: "user" }) },
      device: { id: SEED.firstId, sensorId: SEED.firstId, key: k.device({ id: SEED.firstId, user_id: first.id }) },
      consumer: { id: first.id, key: k.consumer({ id: first.id, user_id: first.id }) },
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { loadConfig } = await import("./config.js");
  const { openDatabase } = await import("./db.js");
  const config = loadConfig(process.env);
  const pool = await openDatabase({ ...config.database, log: console.log });
  try {
    console.log(JSON.stringify(await seedDatabase(pool, config), null, 2));
  } finally {
    await pool.end();
  }
}
