// A study's tables as export files (CSV, JSON): core lays each out as its study did
// (studyTableRows); here it becomes a DataTable, named for the file.
import { STUDY_TABLE_IDS, studyTableRows, type StudyTableId } from "@opsbench/core";
import type { StudyTablesView } from "@opsbench/db";
import type { DataTable } from "./data-table";

export { STUDY_TABLE_IDS };

export function studyTable(view: Pick<StudyTablesView, "cells">, id: StudyTableId): DataTable {
  const { columns, rows } = studyTableRows(id, view.cells);
  return { name: `study-${id}`, columns, rows };
}
