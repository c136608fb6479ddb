// `npm run db:migrate` and the compose file's one-shot migrate service: applies pending
// migrations, then (when OPSBENCH_APP_DB_USER is set) creates or updates the application's
// own database role with OPSBENCH_APP_DB_PASSWORD, granting it the new tables too.
// The connection is DATABASE_URL, or built from POSTGRES_HOST, POSTGRES_PORT, POSTGRES_USER,
// POSTGRES_PASSWORD and POSTGRES_DB (any password works: it is URL-encoded).
import { withConnectionUrls } from "@opsbench/core";
import { withSecretFiles } from "@opsbench/core/local-services";
import { ensureAppRole } from "./app-role";
import { applyMigrations, defaultMigrationsDir } from "./migrate";

async function main(): Promise<number> {
  const env = withConnectionUrls(withSecretFiles(process.env));
  const url = env.DATABASE_URL;
  if (!url) {
    console.error("migrate: set DATABASE_URL, or POSTGRES_HOST (with POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB)");
    return 2;
  }
  const role = env.OPSBENCH_APP_DB_USER;
  if (role && !env.OPSBENCH_APP_DB_PASSWORD) {
    console.error("migrate: OPSBENCH_APP_DB_USER is set but OPSBENCH_APP_DB_PASSWORD is not");
    return 2;
  }
  const where = new URL(url).pathname.slice(1);
  try {
    const r = await applyMigrations(url, defaultMigrationsDir());
    const applied = r.filter((m) => m.applied).map((m) => m.name);
    console.log(`migrate: ${where}: ${applied.length ? `applied ${applied.join(", ")}` : `up to date (${r.length} migrations)`}`);
    if (role && env.OPSBENCH_APP_DB_PASSWORD) {
      await ensureAppRole(url, { role, password: env.OPSBENCH_APP_DB_PASSWORD });
      console.log(`migrate: ${where}: role ${role} can read and write the application tables`);
    }
    return 0;
  } catch (err) {
    console.error(`migrate: ${(err as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
