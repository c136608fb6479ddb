export declare const LOCAL_DEFAULTS: Readonly<{ OPSBENCH_PG_PORT: number; OPSBENCH_REDIS_PORT: number; OPSBENCH_WEB_PORT: number }>;
