import pino from "pino";

export const createLogger = (level: string) => pino({ level, base: { service: "runner" } });
export type Logger = ReturnType<typeof createLogger>;
