import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { type OutageWait, WaitingPool } from "./outage";

export type Db = PrismaClient;

export interface DbOptions {
  max?: number;
  /** The worker's: every query waits (bounded) for a database that is down instead of failing at once (outage.ts). */
  waitForDatabase?: OutageWait;
}

/** A round trip to the database (the health check's): resolves when it answers a query. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}

/** The only place a Prisma client is made; callers pass the URL from their env module. */
export function createDb(databaseUrl: string, opts: DbOptions = {}): Db {
  const config = { connectionString: databaseUrl, max: opts.max ?? 10 };
  const pool = opts.waitForDatabase ? new WaitingPool(config, opts.waitForDatabase) : null;
  // A pool error on an idle client (the server went away) must not crash the process; the next query reconnects.
  pool?.on("error", () => {});
  const adapter = pool ? new PrismaPg(pool, { disposeExternalPool: true }) : new PrismaPg(config);
  return new PrismaClient({ adapter });
}
