// One script validator per server process (a BullMQ queue and its event stream):
// the web app never spawns k6, so users' own k6 scripts are checked by a worker.
import { createScriptValidator, type ScriptValidator } from "@opsbench/jobs";
import { env } from "@/lib/env";
import { singleton } from "@/lib/server/singletons";

export const getScriptValidator = (): ScriptValidator => singleton("script-validator", () => createScriptValidator(env.REDIS_URL));
