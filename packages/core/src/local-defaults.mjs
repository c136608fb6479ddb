// The ports the one-machine set-up chooses when OPSBENCH_PG_PORT, OPSBENCH_REDIS_PORT or OPSBENCH_WEB_PORT is unset.
// Pure (no I/O), so the environment schema (process-env.ts, which browser code imports) and local-settings.mjs share it.
export const LOCAL_DEFAULTS = Object.freeze({ OPSBENCH_PG_PORT: 55432, OPSBENCH_REDIS_PORT: 56379, OPSBENCH_WEB_PORT: 3210 });
