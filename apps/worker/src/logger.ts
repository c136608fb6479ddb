import pino from "pino";

const options = (level: string) => ({ level, base: { service: "worker" } });

/** The worker's log: stdout, or a file (appended) for a worker started in another program's process (the tests). */
export const createLogger = (level: string, file?: string) =>
  file ? pino(options(level), pino.destination({ dest: file, mkdir: true, append: true })) : pino(options(level));
export type Logger = ReturnType<typeof createLogger>;
