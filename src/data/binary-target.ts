import { OccamError } from "../errors.js";
import type { GlmFamilyName } from "../models/glm/family.js";
import type { CsvColumns } from "./csv.js";

/**
 * The CSV with a two-level text target read as 0/1 (the second level in sorted order is 1: for
 * No/Yes, Yes), for the bernoulli family; other columns and families as they are.
 */
export function binaryTargetColumns(csv: CsvColumns, target: string, family: GlmFamilyName): CsvColumns {
  if (family !== "bernoulli" || !csv.columns.includes(target)) return csv;
  return {
    columns: csv.columns,
    rows: csv.rows,
    typed(name, role) {
      const column = csv.typed(name, role);
      if (name !== target || column.kind !== "factor") return column;
      if (column.levels.length !== 2) {
        throw new OccamError(
          "invalid-data",
          `the target ${target} has ${column.levels.length} levels (${column.levels.slice(0, 5).join(", ")}${column.levels.length > 5 ? ", …" : ""}); a bernoulli target has two.`,
        );
      }
      const order = [...column.levels].sort();
      const one = column.levels.indexOf(order[1]);
      return { kind: "numeric", values: Float64Array.from(column.codes, (c) => (c === one ? 1 : 0)) };
    },
  };
}
