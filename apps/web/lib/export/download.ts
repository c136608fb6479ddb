// Browser-only: hands a file to the user (an object URL and a temporary <a download>).
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** "opsbench-latency-over-time-2026-11-21.csv" */
export function exportFileName(name: string, ext: string, date = new Date()): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "export";
  return `opsbench-${slug}-${date.toISOString().slice(0, 10)}.${ext}`;
}
