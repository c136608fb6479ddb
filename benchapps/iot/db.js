// The IoT platform's data on Postgres (the study used MariaDB for users, devices
// and sensors, Kafka + Elasticsearch for sensor data; here sensor values are a
// table too). The schema is made on start when missing; with IOT_CREATE_DATABASE=1
// the database named in IOT_DATABASE_URL is made too, so every deployment can
// have a database of its own.
import pg from "pg";

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS users (
  id            serial PRIMARY KEY,
  name          text NOT NULL,
  username      text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  role          text NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user'))
);
CREATE TABLE IF NOT EXISTS devices (
  id          serial PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        text NOT NULL,
  description text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS devices_user_id ON devices(user_id);
CREATE TABLE IF NOT EXISTS sensors (
  id          serial PRIMARY KEY,
  device_id   integer NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  name        text NOT NULL,
  description text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sensors_device_id ON sensors(device_id);
CREATE TABLE IF NOT EXISTS consumers (
  id          serial PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        text NOT NULL,
  description text
);
CREATE TABLE IF NOT EXISTS consumer_sensors (
  consumer_id integer NOT NULL REFERENCES consumers(id) ON DELETE CASCADE,
  sensor_id   integer NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
  PRIMARY KEY (consumer_id, sensor_id)
);
CREATE TABLE IF NOT EXISTS sensor_values (
  id        bigserial PRIMARY KEY,
  sensor_id integer NOT NULL REFERENCES sensors(id) ON DELETE CASCADE,
  value     double precision NOT NULL,
  ts        timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS sensor_values_sensor_ts ON sensor_values(sensor_id, ts DESC);
`;

// Several replicas or functions may start at once against one new database.
const SCHEMA_LOCK = 4_200_000_042;

/** A pool on the app's database, made (database and schema) when missing. */
export async function openDatabase({ url, createDatabase, poolMax, log }) {
  if (createDatabase) await ensureDatabase(url, log);
  const pool = new pg.Pool({ connectionString: url, max: poolMax });
  pool.on("error", (err) => log(`idle database client failed: ${err.message}`));
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [SCHEMA_LOCK]);
    await client.query(SCHEMA);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [SCHEMA_LOCK]).catch(() => {});
    client.release();
  }
  return pool;
}

async function ensureDatabase(url, log) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`IOT_DATABASE_URL names the database "${name}": use lower-case letters, digits and '_'`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount) return;
    await client.query(`CREATE DATABASE "${name}"`);
    log(`created database ${name}`);
  } catch (err) {
    // Another replica made it first.
    if (err.code !== "42P04" && err.code !== "23505") throw err;
  } finally {
    await client.end();
  }
}
