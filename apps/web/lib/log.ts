// Structured logs of the web server: one JSON object per line, in pino's shape
// (numeric level, time, msg, fields) like the worker's, so one tool reads both.
type Level = "info" | "warn" | "error";
const LEVEL_NUMBER: Record<Level, number> = { info: 30, warn: 40, error: 50 };

const serialize = (value: unknown) => (value instanceof Error ? { type: value.name, message: value.message, stack: value.stack } : value);

function write(level: Level, fields: Record<string, unknown>, msg: string) {
  const line = { level: LEVEL_NUMBER[level], time: Date.now(), service: "web", ...fields, msg };
  const text = JSON.stringify(line, (_key, value: unknown) => serialize(value));
  (level === "info" ? process.stdout : process.stderr).write(`${text}\n`);
}

export const log = {
  info: (fields: Record<string, unknown>, msg: string) => write("info", fields, msg),
  warn: (fields: Record<string, unknown>, msg: string) => write("warn", fields, msg),
  error: (fields: Record<string, unknown>, msg: string) => write("error", fields, msg),
};
