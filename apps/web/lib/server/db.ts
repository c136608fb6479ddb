import { createDb, type Db } from "@opsbench/db";
import { env } from "@/lib/env";
import { singleton } from "./singletons";

export const getDb = (): Db => singleton("db", () => createDb(env.DATABASE_URL));
