// `opsbench cost --model FILE.json --usage FILE.json [--json]`: prices a usage
// record under a cost model, so a study's cost figures can be checked by hand.
// Pure arithmetic from packages/core; no database. `--catalogs` lists the
// built-in price catalogs a model file can name ({"catalog": "..."}).
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  BUILTIN_PRICE_CATALOGS,
  formatCostIssues,
  parseCostModel,
  parseCostUsage,
  priceUsage,
  type CostLine,
  type CostResult,
} from "@opsbench/core";

/** A file that cannot be used: exit 2 with a message naming the file (and the field). */
class CostInputError extends Error {}

function parseCostArgs(args: string[], io: { usageError: (m: string) => Error }) {
  try {
    return parseArgs({
      args,
      strict: true,
      options: {
        model: { type: "string" },
        usage: { type: "string" },
        json: { type: "boolean", default: false },
        catalogs: { type: "boolean", default: false },
      },
    }).values;
  } catch (err) {
    throw io.usageError((err as Error).message);
  }
}

export async function costCommand(args: string[], io: { say: (m: string) => void; usageError: (m: string) => Error }): Promise<number> {
  const values = parseCostArgs(args, io);
  if (values.catalogs) {
    printCatalogs(values.json);
    return 0;
  }
  if (!values.model || !values.usage) throw io.usageError("cost needs --model FILE.json and --usage FILE.json (or --catalogs)");
  try {
    const resolved = parseCostModel(await readJson(values.model, "model"));
    if (!resolved.ok) throw new CostInputError(`model file ${values.model}: ${formatCostIssues(resolved.issues)}`);
    const usage = parseCostUsage(resolved.value.model, await readJson(values.usage, "usage"));
    if (!usage.ok) throw new CostInputError(`usage file ${values.usage}: ${formatCostIssues(usage.issues)}`);
    const result: CostResult = {
      ...priceUsage(resolved.value.model, usage.value),
      ...(resolved.value.catalog ? { catalog: resolved.value.catalog } : {}),
    };
    console.log(values.json ? JSON.stringify(result, null, 2) : formatCost(result, values.model, values.usage));
    return 0;
  } catch (err) {
    if (err instanceof CostInputError) {
      io.say(`opsbench: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

async function readJson(file: string, what: "model" | "usage"): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new CostInputError(
      `cannot read ${what} file ${file}: ${e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "it is a directory" : e.message}`,
    );
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new CostInputError(`${what} file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

export function formatCost(r: CostResult, modelFile: string, usageFile: string): string {
  const from = r.catalog ? `, price catalog ${r.catalog.name} ${r.catalog.version}` : "";
  const out = [`cost of ${usageFile} under ${modelFile} (${r.kind}${from}), in ${r.unit}:`];
  const rows = r.lines.map((l) => [`  ${l.label}`, quantityText(l), `x ${num(l.unitPrice)}`, `= ${num(l.amount)}`]);
  const widths = [0, 1, 2].map((i) => Math.max(0, ...rows.map((row) => row[i]!.length)));
  for (const row of rows) out.push(row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join("  "));
  out.push(`  total: ${num(r.total)} ${r.unit}`);
  // Successful requests first: the figure the compare page, study tables and break-even show.
  if (r.successfulRequests !== null) {
    out.push(
      `  per 1,000 successful requests (${r.successfulRequests.toLocaleString("en-US")}): ${r.perThousandSuccessfulRequests === null ? "n/a" : `${num(r.perThousandSuccessfulRequests)} ${r.unit}`}`,
    );
  }
  if (r.requests !== null)
    out.push(
      `  per 1,000 requests, failed ones included (${r.requests.toLocaleString("en-US")}): ${r.perThousandRequests === null ? "n/a" : `${num(r.perThousandRequests)} ${r.unit}`}`,
    );
  for (const n of r.notes) out.push(`  note: ${n}`);
  return out.join("\n");
}

function quantityText(l: CostLine): string {
  const q = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 3 });
  return l.free > 0 ? `${q(l.used)} - ${q(l.free)} free = ${q(l.billed)} ${l.quantityUnit}` : `${q(l.billed)} ${l.quantityUnit}`;
}

/** Six significant digits: enough to compare with a study's four. */
const num = (x: number): string => String(Number(x.toPrecision(6)));

function printCatalogs(json: boolean): void {
  if (json) {
    console.log(JSON.stringify(BUILTIN_PRICE_CATALOGS, null, 2));
    return;
  }
  for (const e of BUILTIN_PRICE_CATALOGS) {
    console.log(`${e.name}  version ${e.version}  (${e.model.kind}, ${e.model.unit}, prices of ${e.date})\n  source: ${e.source}`);
  }
  console.log(
    `\nuse one in a model file: {"catalog": "NAME"} (newest version) or {"catalog": "NAME", "version": "V"}, plus any field to override`,
  );
}
