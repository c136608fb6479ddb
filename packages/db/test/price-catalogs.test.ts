// A workspace's price catalogs in the real database: seeding the built-ins, editing
// one, resolving a model reference against the workspace's own entries, and
// keeping workspaces apart.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_PRICE_CATALOGS, parseCostUsage, priceUsage } from "@opsbench/core";
import { createDb, workspaceScope, type Db } from "../src/index";
import { testDatabaseUrl } from "../../../tests/helpers";

let db: Db;
let a: ReturnType<typeof workspaceScope>;
let b: ReturnType<typeof workspaceScope>;
const slugs = [`cost-a-${randomUUID()}`, `cost-b-${randomUUID()}`];

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), { max: 2 });
  const [wa, wb] = await Promise.all(slugs.map((slug) => db.workspace.create({ data: { slug, name: slug } })));
  a = workspaceScope(db, wa!.id);
  b = workspaceScope(db, wb!.id);
});
afterAll(async () => {
  await db.workspace.deleteMany({ where: { slug: { in: slugs } } });
  await db.$disconnect();
});

const gkeRef = { catalog: "iot-study-gke-europe-west3" };

describe("price catalogs per workspace", () => {
  it("seeds the built-ins once, with their source and date, and never twice", async () => {
    expect(await a.priceCatalogs.seedBuiltins()).toBe(BUILTIN_PRICE_CATALOGS.length);
    expect(await a.priceCatalogs.seedBuiltins()).toBe(0);
    const gke = await a.priceCatalogs.get("iot-study-gke-europe-west3");
    expect(gke).toMatchObject({
      version: "2022-04",
      date: "2022-04-30",
      builtin: true,
      model: { kind: "reserved", pricePerNodeSecond: 8.7959e-3 },
    });
    expect(gke!.source).toMatch(/Pacyna/);
    expect(await b.priceCatalogs.list()).toEqual([]);
  });

  it("an edited entry is the workspace's own: it prices that workspace's references, not another's", async () => {
    const built = BUILTIN_PRICE_CATALOGS.find((e) => e.name === "iot-study-gke-europe-west3")!;
    const put = await a.priceCatalogs.put({
      ...built,
      description: "node price doubled",
      model: { ...built.model, pricePerNodeSecond: 2 * 8.7959e-3 },
    });
    expect(put.ok && put.value.builtin).toBe(false);

    const total = async (scope: typeof a) => {
      const m = await scope.priceCatalogs.resolveModel(gkeRef);
      if (!m.ok) throw new Error(JSON.stringify(m.issues));
      const u = parseCostUsage(m.value.model, { durationSeconds: 1800, nodes: [{ fromSecond: 0, count: 2 }] });
      if (!u.ok) throw new Error(JSON.stringify(u.issues));
      return priceUsage(m.value.model, u.value).total;
    };
    expect(await total(a)).toBeCloseTo(2 * 1800 * 2 * 8.7959e-3 + 1800 * 2.4996e-3, 9);
    // Workspace b has no copy: the built-in applies (the study's 36.16 ct).
    expect((await total(b)).toPrecision(4)).toBe("36.16");
  });

  it("a new version is a new row; without a version a reference takes the newest", async () => {
    const put = await a.priceCatalogs.put({
      name: "team-vm",
      version: "v2",
      source: "https://example.com/prices",
      date: "2026-11-01",
      model: { kind: "reserved", unit: "USD", pricePerNodeSecond: 2 },
    });
    expect(put.ok).toBe(true);
    await a.priceCatalogs.put({
      name: "team-vm",
      version: "v1",
      source: "https://example.com/prices",
      date: "2026-01-01",
      model: { kind: "reserved", unit: "USD", pricePerNodeSecond: 1 },
    });
    const newest = await a.priceCatalogs.resolveModel({ catalog: "team-vm" });
    expect(newest.ok && newest.value).toMatchObject({ catalog: { version: "v2" }, model: { pricePerNodeSecond: 2 } });
    const old = await a.priceCatalogs.resolveModel({ catalog: "team-vm", version: "v1" });
    expect(old.ok && old.value.model).toMatchObject({ pricePerNodeSecond: 1 });
    expect((await b.priceCatalogs.resolveModel({ catalog: "team-vm" })).ok).toBe(false);
    expect(await a.priceCatalogs.remove("team-vm", "v2")).toBe(true);
    expect(await a.priceCatalogs.remove("team-vm", "v2")).toBe(false);
    expect((await a.priceCatalogs.get("team-vm"))?.version).toBe("v1");
  });

  it("refuses an invalid entry with the field named, writing nothing", async () => {
    const before = await db.priceCatalog.count();
    const r = await a.priceCatalogs.put({
      name: "Bad Name",
      version: "1",
      source: "x",
      date: "2026-13-01",
      model: { kind: "reserved", unit: "USD", pricePerNodeSecond: -1 },
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues.map((i) => i.path)).toEqual(["name", "date", "model.pricePerNodeSecond"]);
    expect(await db.priceCatalog.count()).toBe(before);
  });
});
