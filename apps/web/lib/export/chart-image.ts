// Browser-only: a chart as a standalone SVG file (title and legend drawn in, since
// the page's legend is HTML), and as a PNG rendered from that SVG on a canvas.
export interface ChartLegendItem {
  label: string;
  color: string;
  /** An SVG stroke-dasharray, for series told apart by line style. */
  dash?: string;
}

const FONT = "ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const SVG_NS = "http://www.w3.org/2000/svg";

const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);

/** The plot's <svg> inside a chart card: a Recharts surface, or one of our own marked data-export-svg. */
export function findChartSvg(container: HTMLElement): SVGSVGElement | null {
  return container.querySelector<SVGSVGElement>("svg[data-export-svg], .recharts-wrapper > svg");
}

export function chartSvgMarkup(
  container: HTMLElement,
  opts: { title: string; legend?: ChartLegendItem[] },
): { markup: string; width: number; height: number } {
  const svg = findChartSvg(container);
  if (!svg) throw new Error("this chart has nothing drawn yet");
  const box = svg.getBoundingClientRect();
  const width = Math.max(1, Math.round(box.width));
  const plotHeight = Math.max(1, Math.round(box.height));

  // Legend items laid out in rows (text width estimated: no layout engine here).
  const legend = opts.legend ?? [];
  const items: Array<{ x: number; y: number; item: ChartLegendItem }> = [];
  let x = 12;
  let y = 40;
  for (const item of legend) {
    const w = 26 + item.label.length * 6.2 + 14;
    if (x + w > width - 8 && x > 12) {
      x = 12;
      y += 16;
    }
    items.push({ x, y, item });
    x += w;
  }
  const header = legend.length ? y + 12 : 30;
  const height = header + plotHeight;

  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute("x", "0");
  clone.setAttribute("y", String(header));
  clone.setAttribute("width", String(width));
  clone.setAttribute("height", String(plotHeight));
  if (!clone.getAttribute("viewBox")) clone.setAttribute("viewBox", `0 0 ${width} ${plotHeight}`);
  clone.removeAttribute("style");
  clone.removeAttribute("class");

  const legendMarkup = items
    .map(
      ({ x, y, item }) =>
        `<line x1="${x}" y1="${y - 4}" x2="${x + 20}" y2="${y - 4}" stroke="${escapeXml(item.color)}" stroke-width="2"${item.dash ? ` stroke-dasharray="${escapeXml(item.dash)}"` : ""}/>` +
        `<text x="${x + 26}" y="${y}" font-size="11" fill="#3f3f46">${escapeXml(item.label)}</text>`,
    )
    .join("");
  const markup =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="${SVG_NS}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escapeXml(FONT)}">` +
    `<rect width="100%" height="100%" fill="#ffffff"/>` +
    `<text x="12" y="20" font-size="13" font-weight="600" fill="#18181b">${escapeXml(opts.title)}</text>` +
    legendMarkup +
    new XMLSerializer().serializeToString(clone) +
    `</svg>\n`;
  return { markup, width, height };
}

/** Renders SVG markup to a PNG at `scale` x its size. */
export async function svgToPng(markup: string, width: number, height: number, scale = 2): Promise<Blob> {
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(markup)}`;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("no 2D canvas in this browser");
  ctx.scale(scale, scale);
  ctx.drawImage(img, 0, 0, width, height);
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("the PNG could not be made"))), "image/png"),
  );
}
