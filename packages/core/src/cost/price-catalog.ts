// A price catalog entry: a named, versioned cost model with where its prices come
// from and when they were read. Built-ins live in ./catalogs; a workspace keeps
// its own (edited) copies in the price_catalogs table (packages/db).
import { z } from "zod";
import { costModel } from "./cost-model";

export const priceCatalogName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, "use lower-case letters, digits, '.', '_' or '-'");

export const priceCatalogEntry = z
  .object({
    name: priceCatalogName,
    /** Versions of one name are told apart by `date`; the version is their label (e.g. "2026-11"). */
    version: z
      .string()
      .min(1)
      .max(32)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "use letters, digits, '.', '_' or '-'"),
    /** The price page's URL, or a citation when the prices were derived (e.g. from a study's invoice). */
    source: z.string().min(1).max(500),
    /** When the prices were read or valid (YYYY-MM-DD). */
    date: z.iso.date("must be a date like 2026-11-21"),
    description: z.string().max(4000).optional(),
    model: costModel,
  })
  .strict();
export type PriceCatalogEntry = z.infer<typeof priceCatalogEntry>;
export type PriceCatalogEntryInput = z.input<typeof priceCatalogEntry>;

/** The entry of that name and version; without a version, the newest (by date, then version). */
export function findPriceCatalog<E extends { name: string; version: string; date: string }>(
  entries: readonly E[],
  name: string,
  version?: string,
): E | undefined {
  const named = entries.filter((e) => e.name === name && (version === undefined || e.version === version));
  return named.sort((a, b) => (a.date === b.date ? b.version.localeCompare(a.version) : b.date.localeCompare(a.date)))[0];
}
