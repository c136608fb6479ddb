import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";

export type Db = PrismaClient;

/** The only place a Prisma client is made; callers pass the URL from their env module. */
export function createDb(databaseUrl: string, opts: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: opts.max ?? 10 });
  return new PrismaClient({ adapter });
}
