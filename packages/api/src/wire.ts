// Small pieces every response schema uses: how dates and ids travel in JSON.
import { RUN_STATUSES } from "@opsbench/core";
import { z } from "zod";

/** A timestamp as the API writes it (Date.toISOString()). */
export const isoTime = z.iso.datetime();
export const nullableIsoTime = isoTime.nullable();
export const id = z.uuid();

/** A run's status: stored as text, one of core's RUN_STATUSES. */
export const runStatus = z.string().refine((s) => (RUN_STATUSES as readonly string[]).includes(s), { message: "not a run status" });

/** The path of a route about one item: its id (or, where the route says so, its name). */
export const idParams = z.object({ id: z.string() });
