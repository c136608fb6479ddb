import { createRunQueue, type RunQueue } from "@opsbench/jobs";
import { env } from "@/lib/env";
import { singleton } from "./singletons";

export const getRunQueue = (): RunQueue => singleton("run-queue", () => createRunQueue(env.REDIS_URL));
