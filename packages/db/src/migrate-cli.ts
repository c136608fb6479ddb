// `npm run db:migrate`: applies pending migrations to DATABASE_URL.
import { applyMigrations, defaultMigrationsDir } from "./migrate";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("migrate: DATABASE_URL is not set");
  process.exit(2);
}
applyMigrations(url, defaultMigrationsDir())
  .then((r) => {
    const applied = r.filter((m) => m.applied).map((m) => m.name);
    const where = new URL(url).pathname.slice(1);
    console.log(`migrate: ${where}: ${applied.length ? `applied ${applied.join(", ")}` : `up to date (${r.length} migrations)`}`);
  })
  .catch((err) => {
    console.error(`migrate: ${err.message}`);
    process.exit(1);
  });
