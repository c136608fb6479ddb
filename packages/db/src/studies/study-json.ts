// A study row's JSON columns (cells, planned order) and its runs', parsed as they leave the database.
import { plannedOrderSchema, readStoredJson, studyCellsSchema, type StudyCell } from "@opsbench/core";
import { parseRunJson, type ParsedRun, type RunJson } from "../runs/run-json";

type StudyJsonColumns = { cells: unknown; plannedOrder: unknown };
type RunRow = { [K in keyof RunJson]: unknown };

/** The study with cells and planned order parsed ([] when a row cannot be read: its cells are then derived from its runs). */
export function parseStudyJson<S extends StudyJsonColumns>(
  row: S,
): Omit<S, keyof StudyJsonColumns> & { cells: StudyCell[]; plannedOrder: number[] } {
  const { cells, plannedOrder, ...rest } = row;
  return {
    ...rest,
    cells: readStoredJson(studyCellsSchema, cells) ?? [],
    plannedOrder: readStoredJson(plannedOrderSchema, plannedOrder) ?? [],
  };
}

/** The same, with the study's runs parsed too. */
export function parseStudyWithRuns<S extends StudyJsonColumns & { runs: RunRow[] }>(row: S) {
  const { runs, ...study } = row;
  return { ...parseStudyJson(study), runs: runs.map((r: S["runs"][number]): ParsedRun<S["runs"][number]> => parseRunJson(r)) };
}
