// The IoT app's settings, from its environment, checked once at start.
const DEV_SECRET = "opsbench-iot-benchmark-secret-not-for-production";

export function loadConfig(env) {
  const url = env.IOT_DATABASE_URL;
  if (!url) throw new Error("IOT_DATABASE_URL is required, e.g. postgresql://user@127.0.0.1:5432/iot_run1");
  const int = (name, def, min, max) => {
    const v = env[name] === undefined || env[name] === "" ? def : Number(env[name]);
    if (!Number.isInteger(v) || v < min || v > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
    return v;
  };
  const scryptCost = int("IOT_SCRYPT_COST", 16384, 2, 1 << 20);
  if ((scryptCost & (scryptCost - 1)) !== 0) throw new Error("IOT_SCRYPT_COST must be a power of two");
  return {
    port: int("PORT", 8080, 0, 65535),
    host: env.HOST ?? "127.0.0.1",
    function: env.FUNCTION || null,
    seedOnStart: env.IOT_SEED === "1",
    secret: env.IOT_JWT_SECRET || DEV_SECRET,
    scryptCost,
    admin: { username: env.IOT_ADMIN_USERNAME || "admin", password: env.IOT_ADMIN_PASSWORD || "admin" },
    database: { url, createDatabase: env.IOT_CREATE_DATABASE === "1", poolMax: int("IOT_DB_POOL_MAX", 10, 1, 1000) },
  };
}
