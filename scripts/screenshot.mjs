// A full-page screenshot of one page of a running opsbench, in Debian's Chromium: how the README's picture of
// the demo's comparison is made from a real `npm run demo` (2-minute runs), not from the tests' time-scaled one.
//   node scripts/screenshot.mjs URL FILE [--width 1400] [--height 1000]
import { mkdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { width: { type: "string", default: "1400" }, height: { type: "string", default: "1000" } },
});
const [url, file] = positionals;
if (!url || !file) {
  console.error("usage: node scripts/screenshot.mjs URL FILE [--width 1400] [--height 1000]");
  process.exit(2);
}
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
try {
  const page = await browser.newPage({ viewport: { width: Number(values.width), height: Number(values.height) } });
  const res = await page.goto(url, { waitUntil: "networkidle" });
  if (!res?.ok()) throw new Error(`${url} answered ${res?.status() ?? "nothing"}`);
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
} finally {
  await browser.close();
}
