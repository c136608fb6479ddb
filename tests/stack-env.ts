// Where the test stack lives. Tests use a database and a Redis db of their own,
// so `npm test` never touches the demo's data.
export const testStack = {
  databaseUrl: process.env.TEST_DATABASE_URL ?? "postgresql://opsbench@127.0.0.1:55432/opsbench_test",
  redisUrl: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:56379/1",
  webPort: Number(process.env.TEST_WEB_PORT ?? 3299),
  /** The test build of the web app lives apart from the demo's (.next). */
  nextDistDir: process.env.OPSBENCH_NEXT_DIST_DIR ?? ".next-test",
};
