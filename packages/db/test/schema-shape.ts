// Describes a database's shape two ways, so they can be compared: from
// schema.prisma (Prisma's own parser, DMMF) and from Postgres's catalogs.
import { readFileSync } from "node:fs";
import path from "node:path";
import internals from "@prisma/internals";
import type pg from "pg";

export interface Shape {
  enums: Record<string, string[]>;
  columns: Record<string, string>; // "table.column" -> "type null|not null"
  indexes: Record<string, string>; // name -> "unique? table(cols)"
  foreignKeys: Record<string, string>; // name -> "table(cols) -> table(cols) on delete X"
}

const SCALAR_TYPES: Record<string, string> = {
  Int: "int4",
  BigInt: "int8",
  Float: "float8",
  Boolean: "bool",
  Json: "jsonb",
  Bytes: "bytea",
  String: "text",
  Decimal: "numeric",
};

export async function shapeFromSchema(schemaPath = path.resolve(import.meta.dirname, "../../../prisma/schema.prisma")): Promise<Shape> {
  const dmmf = await internals.getDMMF({ datamodel: readFileSync(schemaPath, "utf8") });
  const models = dmmf.datamodel.models;
  const table = (model: string) => {
    const m = models.find((x) => x.name === model)!;
    return m.dbName ?? m.name;
  };
  const column = (model: string, field: string) => {
    const f = models.find((x) => x.name === model)!.fields.find((x) => x.name === field)!;
    return (f as { dbName?: string | null }).dbName ?? f.name;
  };
  const shape: Shape = { enums: {}, columns: {}, indexes: {}, foreignKeys: {} };
  for (const e of dmmf.datamodel.enums) shape.enums[e.dbName ?? e.name] = e.values.map((v) => v.dbName ?? v.name);
  for (const m of models) {
    const t = m.dbName ?? m.name;
    for (const f of m.fields) {
      if (f.kind === "object") {
        if (f.relationFromFields?.length) {
          const from = f.relationFromFields.map((x) => column(m.name, x));
          const to = (f.relationToFields ?? []).map((x) => column(f.type, x));
          const onDelete = (f.relationOnDelete ?? (f.isRequired ? "Restrict" : "SetNull"))
            .replace(/([a-z])([A-Z])/g, "$1 $2")
            .toUpperCase();
          shape.foreignKeys[`${t}_${from.join("_")}_fkey`] =
            `${t}(${from.join(",")}) -> ${table(f.type)}(${to.join(",")}) on delete ${onDelete}`;
        }
        continue;
      }
      let type: string;
      if (f.kind === "enum") type = f.type;
      else if (f.type === "DateTime") {
        const [native, args] = (f.nativeType ?? ["Timestamp", ["3"]]) as [string, string[]];
        type = `${native === "Timestamptz" ? "timestamptz" : "timestamp"}(${args[0] ?? "3"})`;
      } else if (f.type === "String" && f.nativeType?.[0] === "Uuid") type = "uuid";
      else type = SCALAR_TYPES[f.type] ?? `unknown:${f.type}`;
      // A scalar list (String[]) is an array column, which Prisma Migrate creates without NOT NULL ("text[]": udt "_text").
      shape.columns[`${t}.${(f as { dbName?: string | null }).dbName ?? f.name}`] = f.isList
        ? `_${type} null`
        : `${type} ${f.isRequired ? "not null" : "null"}`;
    }
  }
  for (const idx of dmmf.datamodel.indexes) {
    const t = table(idx.model);
    const cols = idx.fields.map((x) => column(idx.model, x.name));
    const suffix = idx.type === "id" ? "pkey" : idx.type === "unique" ? "key" : "idx";
    const name = idx.dbName ?? (idx.type === "id" ? `${t}_pkey` : `${t}_${cols.join("_")}_${suffix}`);
    shape.indexes[name] = `${idx.type === "normal" ? "" : "unique "}${t}(${cols.join(",")})`;
  }
  return shape;
}

export async function shapeFromDatabase(client: pg.Client | pg.PoolClient): Promise<Shape> {
  const shape: Shape = { enums: {}, columns: {}, indexes: {}, foreignKeys: {} };
  const enums = await client.query(
    `SELECT t.typname, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' GROUP BY t.typname`,
  );
  for (const r of enums.rows) shape.enums[r.typname] = r.labels;
  const cols = await client.query(
    `SELECT table_name, column_name, udt_name, is_nullable, datetime_precision
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
  );
  for (const r of cols.rows) {
    const type = r.udt_name.startsWith("timestamp") ? `${r.udt_name}(${r.datetime_precision})` : r.udt_name;
    shape.columns[`${r.table_name}.${r.column_name}`] = `${type} ${r.is_nullable === "YES" ? "null" : "not null"}`;
  }
  const idx = await client.query(
    `SELECT i.relname AS name, t.relname AS table, ix.indisunique AS unique,
            array_agg(a.attname::text ORDER BY k.ord) AS cols
       FROM pg_index ix
       JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'
      GROUP BY i.relname, t.relname, ix.indisunique`,
  );
  for (const r of idx.rows) shape.indexes[r.name] = `${r.unique ? "unique " : ""}${r.table}(${r.cols.join(",")})`;
  const fks = await client.query(
    `SELECT c.conname, t.relname AS table, f.relname AS ftable, c.confdeltype,
            (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS cols,
            (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS fcols
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class f ON f.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE c.contype = 'f' AND n.nspname = 'public'`,
  );
  const rule: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" };
  for (const r of fks.rows)
    shape.foreignKeys[r.conname] = `${r.table}(${r.cols.join(",")}) -> ${r.ftable}(${r.fcols.join(",")}) on delete ${rule[r.confdeltype]}`;
  return shape;
}
