// What a run's script is given in __ENV (issue 37): the target's address, the run's --env values, and the values of
// the workspace secrets it names, opened here with OPSBENCH_SECRET_KEY. Nothing of the worker's own environment:
// the runner gets exactly this record (runner-protocol.ts). The secret values are also what mask() hides in
// whatever the run shows (its error, its step's detail, its events).
import { maskSecrets } from "@opsbench/core";
import { type Db, runScriptEnv } from "@opsbench/db";
import { RunFailure } from "./run-failure";

export interface ScriptEnv {
  env: Record<string, string>;
  /** Replaces every secret value in a text with ***. */
  mask: (text: string) => string;
}

export async function scriptEnvOf(db: Db, runId: string, baseUrl: string, secretKey: string | undefined): Promise<ScriptEnv> {
  let plain: Record<string, string>;
  let secrets: Record<string, string>;
  try {
    ({ env: plain, secrets } = await runScriptEnv(db, runId, secretKey));
  } catch (err) {
    throw new RunFailure((err as Error).message);
  }
  const values = Object.values(secrets);
  return {
    // The target's address last: neither --env nor a secret can replace it (their keys refuse OPSBENCH_*, too).
    env: { ...plain, ...secrets, OPSBENCH_BASE_URL: baseUrl },
    mask: (text) => (values.length ? maskSecrets(text, values) : text),
  };
}
