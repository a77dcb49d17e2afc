/**
 * What a CSV cell is — a number, text, or missing — decided in one place, and columns built from their
 * cells one at a time, so that a file can be read row by row into typed storage (a Float64Array of
 * numbers, or a factor's level codes) without ever holding its cells as strings.
 *
 * A builder only records what it sees; the verdict waits until the column is asked for in a role
 * (target or input), because a column the comparison does not use may hold anything. Rows are numbered
 * as a spreadsheet shows them: the header is row 1, the first data row is row 2.
 */
import { invalidData, type OccamError } from "../errors.js";

/** A decimal number as a spreadsheet writes it: optional sign, digits with an optional point, optional exponent. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** Cells that mean "no value" (compared in lower case); none is longer than four characters. */
const MISSING = new Set(["", "na", "nan", "n/a", "null"]);

function isMissing(cell: string): boolean {
  return cell.length <= 4 && MISSING.has(cell.toLowerCase());
}

/** A column as occam reads it: numbers, or text (a factor) as level codes. */
export type TypedColumn =
  | { readonly kind: "numeric"; readonly values: Float64Array }
  | { readonly kind: "factor"; readonly levels: readonly string[]; readonly codes: Int32Array };

/** The first cell of a kind: its 0-based data-row index and its text; row −1 when there is none. */
interface FirstCell {
  row: number;
  cell: string;
}

const NONE = (): FirstCell => ({ row: -1, cell: "" });

/**
 * Collects one column's cells in row order. Numbers go into a Float64Array and text into level codes
 * until the column turns out to mix both or to miss a value; from then on nothing more is stored, and
 * {@link ColumnBuilder.typed} or {@link ColumnBuilder.numeric} throws the error that names the cells.
 */
export class ColumnBuilder {
  private values: Float64Array;
  private codes: Int32Array | null = null;
  private readonly index = new Map<string, number>();
  private rows = 0;
  private readonly firstNumber = NONE();
  private readonly firstText = NONE();
  private readonly firstMissing = NONE();
  private readonly firstInfinite = NONE();

  /** `capacity`: the expected number of rows (storage grows past it by doubling). */
  constructor(
    readonly name: string,
    capacity = 1024,
  ) {
    this.values = new Float64Array(Math.max(16, capacity));
  }

  /** Adds the next row's cell (already trimmed). */
  push(cell: string): void {
    const row = this.rows++;
    if (isMissing(cell)) {
      if (this.firstMissing.row < 0) this.note(this.firstMissing, row, cell);
      return;
    }
    if (NUMBER.test(cell)) {
      if (this.firstNumber.row < 0) this.note(this.firstNumber, row, cell);
      const value = Number(cell);
      if (!Number.isFinite(value) && this.firstInfinite.row < 0) this.note(this.firstInfinite, row, cell);
      if (this.firstText.row >= 0 || this.firstMissing.row >= 0) return;
      if (row >= this.values.length) this.values = grow(this.values, row);
      this.values[row] = value;
      return;
    }
    if (this.firstText.row < 0) {
      this.note(this.firstText, row, cell);
      if (this.firstNumber.row < 0 && this.firstMissing.row < 0) {
        // Text from the first row on: a factor; the numbers' storage is not needed.
        this.codes = new Int32Array(this.values.length);
        this.values = new Float64Array(0);
      }
    }
    const codes = this.codes;
    if (codes === null || this.firstMissing.row >= 0) return;
    let code = this.index.get(cell);
    if (code === undefined) {
      code = this.index.size;
      this.index.set(cell, code);
    }
    if (row >= codes.length) this.codes = grow(codes, row);
    (this.codes as Int32Array)[row] = code;
  }

  private note(first: FirstCell, row: number, cell: string): void {
    first.row = row;
    first.cell = cell;
    // A column that can no longer be used (a missing cell, numbers mixed with text) frees what it holds.
    if (this.firstMissing.row >= 0 || (this.firstText.row >= 0 && this.firstNumber.row >= 0)) {
      this.values = new Float64Array(0);
      this.codes = null;
    }
  }

  /** The number of cells pushed. */
  get length(): number {
    return this.rows;
  }

  private missingError(role: string): OccamError {
    const { row, cell } = this.firstMissing;
    const shown = cell === "" ? "an empty cell" : `"${cell}"`;
    return invalidData(
      `Row ${row + 2}, column "${this.name}" (${role}): missing value (${shown}). occam does not impute or drop rows: fill in the value or remove the row before loading.`,
    );
  }

  private notANumber(role: string, first: FirstCell): OccamError {
    return invalidData(
      `Row ${first.row + 2}, column "${this.name}" (${role}): "${first.cell}" is not a finite number. Fix the cell${role === "input" ? ", or leave the column out of inputs" : ""}; numbers are written like 3, -0.25 or 1.5e-3.`,
    );
  }

  /**
   * The column as numbers when every cell is one, or as a factor when none is: levels in sorted
   * (code-point) order, as R's `factor` has them. Throws an `invalid-data` OccamError naming the row and
   * column for a missing cell, a number too large for a double, and a column that mixes numbers and
   * text (naming one cell of each).
   */
  typed(role: string): TypedColumn {
    if (this.firstMissing.row >= 0) throw this.missingError(role);
    const { firstNumber, firstText } = this;
    if (firstText.row < 0) return { kind: "numeric", values: this.numeric(role) };
    if (firstNumber.row >= 0) {
      throw invalidData(
        `Column "${this.name}" (${role}) mixes numbers (row ${firstNumber.row + 2}: "${firstNumber.cell}") and text (row ${firstText.row + 2}: "${firstText.cell}"): fix the cell that is wrong, or make every cell text if the column is a category.`,
      );
    }
    const seen = [...this.index.keys()];
    const levels = [...seen].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    const sortedCode = new Map(levels.map((level, j) => [level, j]));
    const remap = Int32Array.from(seen, (level) => sortedCode.get(level) as number);
    const codes = (this.codes as Int32Array).subarray(0, this.rows);
    for (let i = 0; i < codes.length; i++) codes[i] = remap[codes[i]];
    return { kind: "factor", levels, codes };
  }

  /**
   * The column as finite numbers. Throws an `invalid-data` OccamError naming the row and column of the
   * first cell that is missing, text, or too large for a double.
   */
  numeric(role: string): Float64Array {
    const bad = [this.firstMissing, this.firstText, this.firstInfinite].filter((f) => f.row >= 0);
    if (bad.length > 0) {
      const first = bad.reduce((a, b) => (b.row < a.row ? b : a));
      throw first === this.firstMissing ? this.missingError(role) : this.notANumber(role, first);
    }
    return this.values.subarray(0, this.rows);
  }
}

function grow<T extends Float64Array | Int32Array>(array: T, needed: number): T {
  let size = array.length;
  while (size <= needed) size *= 2;
  const out = new (array.constructor as { new (n: number): T })(size);
  out.set(array);
  return out;
}

/** A column built from its cells at once (see {@link ColumnBuilder}). */
export function columnFromCells(name: string, cells: readonly string[]): ColumnBuilder {
  const builder = new ColumnBuilder(name, cells.length);
  for (const cell of cells) builder.push(cell);
  return builder;
}
