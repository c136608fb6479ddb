// Generates the Prisma client into src/generated (git-ignored). An explicit step:
// npm 11 may skip install scripts. `prisma generate` needs no engine binary, but
// the CLI checks that PRISMA_SCHEMA_ENGINE_BINARY names a file before it starts;
// Prisma's own download host is unreachable on offline machines.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const r = spawnSync("npx", ["prisma", "generate", "--schema", path.join(root, "prisma/schema.prisma")], {
  cwd: path.resolve(here, ".."),
  env,
  stdio: "inherit",
});
process.exit(r.status ?? 1);
