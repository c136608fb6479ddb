// Structured logs of the web server: pino, as the worker and the runner log, so one tool reads all three (one JSON
// object per line: numeric level, time, msg, fields; an Error under `err` with its type, message and stack).
// LOG_LEVEL sets the level (default info), as it does for the worker.
import pino from "pino";

export const log = pino({ level: process.env.LOG_LEVEL || "info", base: { service: "web" } });
