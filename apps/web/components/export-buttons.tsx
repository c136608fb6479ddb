"use client";

import { useState, type RefObject } from "react";
import { chartSvgMarkup, svgToPng, type ChartLegendItem } from "@/lib/export/chart-image";
import { toCsv, toJson, type DataTable } from "@/lib/export/data-table";
import { downloadBlob, exportFileName } from "@/lib/export/download";

// One short class (globals.css): a comparison page has dozens of these buttons.
const btn = "export-btn";

/** CSV and JSON of a table or series (built when clicked). */
/** `name` titles the file; `fileName` (short) names it. */
export function ExportTableButtons({ name, fileName, table }: { name: string; fileName?: string; table: () => DataTable }) {
  return (
    <span className="inline-flex gap-1 print:hidden" data-testid="export-table">
      <button
        type="button"
        className={btn}
        data-testid="export-csv"
        title={`Download ${name} as CSV`}
        onClick={() =>
          downloadBlob(new Blob([toCsv(table())], { type: "text/csv;charset=utf-8" }), exportFileName(fileName ?? name, "csv"))
        }
      >
        CSV
      </button>
      <button
        type="button"
        className={btn}
        data-testid="export-json"
        title={`Download ${name} as JSON`}
        onClick={() => downloadBlob(new Blob([toJson(table())], { type: "application/json" }), exportFileName(fileName ?? name, "json"))}
      >
        JSON
      </button>
    </span>
  );
}

/** PNG and SVG of the chart drawn inside `target`, with its title and legend drawn in. */
export function ExportChartButtons({
  name,
  fileName,
  target,
  legend,
}: {
  name: string;
  fileName?: string;
  target: RefObject<HTMLElement | null>;
  legend?: ChartLegendItem[];
}) {
  const [error, setError] = useState<string | null>(null);
  const run = async (format: "svg" | "png") => {
    setError(null);
    try {
      if (!target.current) throw new Error("nothing to export");
      const { markup, width, height } = chartSvgMarkup(target.current, { title: name, legend });
      const blob = format === "svg" ? new Blob([markup], { type: "image/svg+xml" }) : await svgToPng(markup, width, height);
      downloadBlob(blob, exportFileName(fileName ?? name, format));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <span className="inline-flex items-center gap-1 print:hidden" data-testid="export-chart">
      <button type="button" className={btn} data-testid="export-png" title={`Download ${name} as PNG`} onClick={() => void run("png")}>
        PNG
      </button>
      <button type="button" className={btn} data-testid="export-svg" title={`Download ${name} as SVG`} onClick={() => void run("svg")}>
        SVG
      </button>
      {error && <span className="text-2xs text-red-600">{error}</span>}
    </span>
  );
}
