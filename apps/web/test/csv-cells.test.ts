// Exported CSV cells a spreadsheet would run as formulas are escaped; numbers stay numbers.
import { describe, expect, it } from "vitest";
import { csvCell, toCsv } from "../lib/export/data-table";

describe("CSV cells", () => {
  it("prefixes text that begins with = + - @ (or a tab or CR) with a quote, so it is not a formula", () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-cmd")).toBe("'-cmd");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\tx")).toBe("'\tx");
    expect(csvCell("a=b")).toBe("a=b");
  });

  it("leaves numbers, booleans and empty cells alone", () => {
    expect(csvCell(-1.5)).toBe("-1.5");
    expect(csvCell(true)).toBe("true");
    expect(csvCell(null)).toBe("");
    expect(toCsv({ name: "t", columns: ["label", "p95"], rows: [["=evil", -2]] })).toBe("label,p95\r\n'=evil,-2\r\n");
  });
});
