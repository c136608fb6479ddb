// The table of a list page (runs, studies, targets, workloads): a header row, one row per item, a
// test id on the table and on each row. Pages say their columns; the markup and classes live here.
import type { ReactNode } from "react";
import { tableCell as td, tableHead as th } from "./panel";
import { ScrollX } from "@/components/scroll-x";

export interface ListColumn<Row> {
  /** The header's text; "" for a column without one (e.g. the delete buttons). */
  header: string;
  /** Numbers: header and cells right-aligned. */
  right?: boolean;
  /** Classes of the body cell beside its padding (and text-right). */
  className?: string;
  cell: (row: Row) => ReactNode;
}

const withClasses = (base: string, right: boolean | undefined, extra?: string) =>
  [base, right ? "text-right" : "", extra ?? ""].filter(Boolean).join(" ");

export function ListTable<Row>({
  testId,
  rows,
  columns,
  rowKey,
  rowData,
}: {
  testId: string;
  rows: readonly Row[];
  columns: ReadonlyArray<ListColumn<Row>>;
  rowKey: (row: Row) => string;
  /** The row's data-testid and data-* attributes (tests find rows by them). */
  rowData: (row: Row) => { "data-testid": string } & Record<`data-${string}`, string>;
}) {
  return (
    <ScrollX>
      <table data-testid={testId} className="w-full text-xs">
        <thead className="border-b border-zinc-200 bg-zinc-50">
          <tr>
            {columns.map((c, i) => (
              <th key={i} className={withClasses(th, c.right)}>
                {c.header || null}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100">
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowData(row)} className="hover:bg-zinc-50">
              {columns.map((c, i) => (
                <td key={i} className={withClasses(td, c.right, c.className)}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollX>
  );
}
