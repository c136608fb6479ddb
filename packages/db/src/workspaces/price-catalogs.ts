// A workspace's price catalogs (table price_catalogs): named, versioned cost models
// with source and date. Built-ins come from packages/core's data files; seeding
// copies the missing ones in and never overwrites a workspace's edits. Every write
// is validated with core's schema, so a stored model always prices.
import {
  BUILTIN_PRICE_CATALOGS,
  costIssuesFromZod,
  costModel,
  findPriceCatalog,
  formatCostIssues,
  parseCostModel,
  priceCatalogEntry,
  type CostParse,
  type PriceCatalogEntry,
  type ResolvedCostModel,
} from "@opsbench/core";
import type { Db } from "../client";
import { jsonInput } from "../json-column";

export interface StoredPriceCatalog extends PriceCatalogEntry {
  id: string;
  /** Copied from a built-in and not edited since. */
  builtin: boolean;
  updatedAt: Date;
}

type Row = {
  id: string;
  name: string;
  version: string;
  source: string;
  date: string;
  description: string | null;
  model: unknown;
  builtin: boolean;
  updatedAt: Date;
};

/** The row as an entry, its model not yet checked (resolveModel reports an invalid one; list and get show it as stored). */
const entryOf = (r: Row) => ({
  name: r.name,
  version: r.version,
  source: r.source,
  date: r.date,
  ...(r.description === null ? {} : { description: r.description }),
  model: r.model,
});
/** The row as a catalog entry; null when its model does not parse (every write is checked, so only a hand-edited row). */
function toStored(r: Row): StoredPriceCatalog | null {
  const e = priceCatalogEntry.safeParse(entryOf(r));
  return e.success ? { ...e.data, id: r.id, builtin: r.builtin, updatedAt: r.updatedAt } : null;
}
const storedOf = (rows: Row[]) => rows.flatMap((r) => toStored(r) ?? []);
const rowData = (e: PriceCatalogEntry) => ({
  source: e.source,
  date: e.date,
  description: e.description ?? null,
  model: jsonInput(costModel, e.model),
});

export function priceCatalogStore(db: Db, workspaceId: string) {
  const rows = () =>
    db.priceCatalog.findMany({ where: { workspaceId }, orderBy: [{ name: "asc" }, { date: "desc" }, { version: "desc" }] });
  return {
    list: async (): Promise<StoredPriceCatalog[]> => storedOf(await rows()),

    /** The entry of that name and version; without a version, the newest. Null when there is none. */
    get: async (name: string, version?: string): Promise<StoredPriceCatalog | null> =>
      findPriceCatalog(storedOf(await rows()), name, version) ?? null,

    /** Creates or replaces the entry of that name and version; invalid input comes back as issues, nothing written. */
    put: async (input: unknown): Promise<CostParse<StoredPriceCatalog>> => {
      const parsed = priceCatalogEntry.safeParse(input);
      if (!parsed.success) return { ok: false, issues: costIssuesFromZod(parsed.error) };
      const e = parsed.data;
      const row = await db.priceCatalog.upsert({
        where: { workspaceId_name_version: { workspaceId, name: e.name, version: e.version } },
        create: { workspaceId, name: e.name, version: e.version, ...rowData(e), builtin: false },
        update: { ...rowData(e), builtin: false },
      });
      return { ok: true, value: { ...e, id: row.id, builtin: row.builtin, updatedAt: row.updatedAt } };
    },

    /** Deletes one version; false when it did not exist. */
    remove: async (name: string, version: string): Promise<boolean> =>
      (await db.priceCatalog.deleteMany({ where: { workspaceId, name, version } })).count > 0,

    /** Copies in the built-in entries this workspace lacks (by name and version). Returns how many were added. */
    seedBuiltins: async (): Promise<number> =>
      (
        await db.priceCatalog.createMany({
          data: BUILTIN_PRICE_CATALOGS.map((e) => ({ workspaceId, name: e.name, version: e.version, ...rowData(e), builtin: true })),
          skipDuplicates: true,
        })
      ).count,

    /**
     * Parses a model document, resolving {"catalog": ...} against this workspace's
     * entries first, then the built-ins it has no copy of.
     */
    resolveModel: async (json: unknown): Promise<CostParse<ResolvedCostModel>> => {
      const own: PriceCatalogEntry[] = [];
      for (const r of await rows()) {
        const e = priceCatalogEntry.safeParse(entryOf(r));
        if (e.success) own.push(e.data);
        else if (isReferenceTo(json, r.name, r.version)) {
          return {
            ok: false,
            issues: [
              {
                path: "catalog",
                message: `stored price catalog "${r.name}" ${r.version} is invalid: ${formatCostIssues(costIssuesFromZod(e.error))}`,
              },
            ],
          };
        }
      }
      const have = new Set(own.map((e) => `${e.name}\u0000${e.version}`));
      return parseCostModel(json, [...own, ...BUILTIN_PRICE_CATALOGS.filter((e) => !have.has(`${e.name}\u0000${e.version}`))]);
    },
  };
}
export type PriceCatalogStore = ReturnType<typeof priceCatalogStore>;

function isReferenceTo(json: unknown, name: string, version: string): boolean {
  if (typeof json !== "object" || json === null) return false;
  const ref = json as { catalog?: unknown; version?: unknown };
  return ref.catalog === name && (ref.version === undefined || ref.version === version);
}
