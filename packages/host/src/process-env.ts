// The environment every process of a local target starts from. A benchapp gets
// this, what its benchapp.json declares, the target's env (names checked in
// core's targets/target-env.ts) and what opsbench sets (PORT, HOST, OPSBENCH_*): never
// the worker's own settings (DATABASE_URL, REDIS_URL and whatever else it has).

const FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** PATH (to find node, python, sh) and HOME, taken from the worker: nothing else. */
export function minimalEnv(): Record<string, string> {
  // The only read of the worker's environment in providers, narrowed to two names on purpose.
  const { PATH, HOME } = process.env;
  return { PATH: PATH || FALLBACK_PATH, HOME: HOME || "/" };
}
