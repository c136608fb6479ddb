// Writing a JSON column: the value is checked against its schema (core's
// stored-json.ts) and stored as plain JSON; reads go through readStoredJson.
import { toStoredJson, type JsonValue, type StoredJsonInput, type StoredJsonSchema } from "@opsbench/core";
import type { Prisma } from "./generated/prisma/client";

export function jsonInput<S extends StoredJsonSchema>(schema: S, value: StoredJsonInput<S>): Prisma.InputJsonValue {
  return nonNull(toStoredJson(schema, value));
}

/** The same for a value whose type the caller does not know (a provider's detail, an event's data): the schema decides. */
export function jsonInputOfUnknown(schema: StoredJsonSchema, value: unknown): Prisma.InputJsonValue {
  return nonNull(toStoredJson(schema, value));
}

function nonNull(json: JsonValue): Prisma.InputJsonValue {
  // SQL NULL is written as Prisma.DbNull by the caller; a JSON null is never what is meant.
  if (json === null) throw new TypeError("a JSON column's value is null; store SQL NULL instead");
  return json;
}
