import pino from "pino";

export const createLogger = (level: string) => pino({ level, base: { service: "worker" } });
export type Logger = ReturnType<typeof createLogger>;
