/**
 * New rows to predict at, read as the training rows were: {@link appendRows} puts them after the
 * training rows, so that a design built again on both codes factors with the training levels and forms
 * interactions as in training, and the new rows' part of it is the design to predict at.
 */
import { OccamError } from "../errors.js";
import type { TypedColumn } from "./columns.js";
import type { CsvColumns } from "./csv.js";

/**
 * The training columns followed by the new rows' columns of the same names. The column `target`, which
 * the new rows may lack, is filled there with the training rows' first value. Throws an `invalid-data`
 * OccamError for a column the new rows lack, a column that is numbers in one table and text in the
 * other, and a factor level the training rows do not have.
 */
export function appendRows(train: CsvColumns, fresh: CsvColumns, target: string): CsvColumns {
  const have = new Set(fresh.columns);
  return {
    columns: train.columns,
    rows: train.rows + fresh.rows,
    typed(name, role) {
      const before = train.typed(name, role);
      if (!have.has(name)) {
        if (name !== target) {
          throw new OccamError(
            "invalid-data",
            `the new rows have no column "${name}", which the models use; their columns are ${fresh.columns.map((c) => `"${c}"`).join(", ")}.`,
          );
        }
        return before.kind === "numeric"
          ? { kind: "numeric", values: extended(before.values, fresh.rows, before.values[0]) }
          : { ...before, codes: extended(before.codes, fresh.rows, before.codes[0]) };
      }
      const after = fresh.typed(name, role);
      return role === GROUPING_ROLE ? groupingJoined(before, after) : joined(name, before, after);
    },
  };
}

/** The role a random term's grouping column is read in (`formula.ts`): its new rows may hold new levels. */
export const GROUPING_ROLE = "grouping column";

/**
 * A grouping column of the training rows then the new rows as text levels (numbers written as text), the
 * training levels first and in their order, then the levels only the new rows have: new groups.
 */
function groupingJoined(before: TypedColumn, after: TypedColumn): TypedColumn {
  const texts = (column: TypedColumn): string[] =>
    column.kind === "factor"
      ? Array.from(column.codes, (c) => column.levels[c])
      : Array.from(column.values, (v) => String(v));
  const values = [...texts(before), ...texts(after)];
  const levels = [...new Set(values)];
  const index = new Map(levels.map((level, j) => [level, j]));
  return { kind: "factor", levels, codes: Int32Array.from(values, (v) => index.get(v) as number) };
}

/** A copy of `values` with `count` more entries equal to `fill`. */
function extended<T extends Float64Array | Int32Array>(values: T, count: number, fill: number): T {
  const out = new (values.constructor as new (length: number) => T)(values.length + count);
  out.set(values);
  out.fill(fill, values.length);
  return out;
}

/** One column of the training rows then the new rows, coded with the training levels. */
function joined(name: string, before: TypedColumn, after: TypedColumn): TypedColumn {
  if (before.kind === "numeric" && after.kind === "numeric") {
    const values = new Float64Array(before.values.length + after.values.length);
    values.set(before.values);
    values.set(after.values, before.values.length);
    return { kind: "numeric", values };
  }
  if (before.kind === "factor" && after.kind === "factor") {
    const code = new Map(before.levels.map((level, j) => [level, j]));
    const codes = new Int32Array(before.codes.length + after.codes.length);
    codes.set(before.codes);
    after.codes.forEach((c, i) => {
      const j = code.get(after.levels[c]);
      if (j === undefined) {
        throw new OccamError(
          "invalid-data",
          `row ${i + 1} of the new rows has ${name} = "${after.levels[c]}", a level the training rows do not have (they have ${before.levels.map((l) => `"${l}"`).join(", ")}).`,
        );
      }
      codes[before.codes.length + i] = j;
    });
    return { kind: "factor", levels: before.levels, codes };
  }
  throw new OccamError(
    "invalid-data",
    `the column ${name} holds ${before.kind === "numeric" ? "numbers" : "text"} in the training rows but ${after.kind === "numeric" ? "numbers" : "text"} in the new rows.`,
  );
}
