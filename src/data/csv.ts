/**
 * Loading and validating tabular data from CSV. `parseCsv` reads a header and rows of cells (strings,
 * untouched apart from trimming surrounding spaces) from text; `csv-file.ts` reads files (into memory,
 * or streamed straight into typed columns, see `columns.ts`, for large data); `numericTable` turns chosen
 * columns into a design matrix X and a response y, refusing — with an `invalid-data` OccamError that
 * names the row and column and says what to do — anything it would otherwise have to guess about:
 * missing values, non-numeric cells, constant inputs, too few rows. Nothing is imputed, dropped or
 * rescaled silently; `standardize` is an explicit, opt-in step.
 *
 * Rows are numbered as a spreadsheet shows them: the header is row 1, the first data row is row 2.
 */

import { parse } from "csv-parse/sync";
import { invalidData, OccamError } from "../errors.js";
import { columnMoments } from "../math/moments.js";
import { type ColumnBuilder, columnFromCells, type TypedColumn } from "./columns.js";

/** Options of {@link parseCsv} and `readCsv`. */
export interface CsvOptions {
  /**
   * The field delimiter, one character.
   * @defaultValue ","
   */
  delimiter?: string;
}

/** A CSV file as read: the header and the cells of each column as strings. */
export interface CsvTable {
  /** Column names, in file order (from the header row). */
  readonly columns: readonly string[];
  /** Number of data rows (the header not counted). */
  readonly rows: number;
  /** The raw cells of each column, trimmed of surrounding spaces, one string per data row. */
  readonly data: ReadonlyMap<string, readonly string[]>;
}

/** The options with their defaults filled in, checked. */
export function fillCsvOptions(options: CsvOptions): Required<CsvOptions> {
  const delimiter = options.delimiter ?? ",";
  if (
    typeof delimiter !== "string" ||
    delimiter.length !== 1 ||
    delimiter === '"' ||
    /[\r\n]/.test(delimiter)
  ) {
    throw new OccamError(
      "invalid-argument",
      `parseCsv: delimiter must be a single character other than a quote or a line break, got ${JSON.stringify(delimiter)}.`,
    );
  }
  return { delimiter };
}

/**
 * Parses CSV text with a header row. Throws an `invalid-data` OccamError for a file without a header
 * or without data rows, an empty or duplicate column name, a row whose number of fields differs from
 * the header's (naming the row), and malformed quoting. Blank lines at the end are ignored; a blank
 * line elsewhere is a ragged row.
 *
 * @example
 * const t = parseCsv("x,y\n1,2\n3,4\n"); // t.columns = ["x", "y"], t.rows = 2
 */
export function parseCsv(text: string, options: CsvOptions = {}): CsvTable {
  const { delimiter } = fillCsvOptions(options);
  let records: string[][];
  try {
    records = parse(text, parserOptions(delimiter));
  } catch (error) {
    throw unparsable(error);
  }
  // Blank lines at the end of a file are formatting, not rows.
  while (records.length > 0 && isBlankRecord(records[records.length - 1])) records.pop();
  if (records.length === 0) throw emptyText();
  const header = checkHeader(records[0]);
  const rows = records.length - 1;
  if (rows === 0) throw noDataRows();
  const p = header.length;
  const columns: string[][] = header.map(() => new Array<string>(rows));
  for (let i = 0; i < rows; i++) {
    const record = records[i + 1];
    if (record.length !== p) throw raggedRow(record, i + 2, p, delimiter);
    for (let j = 0; j < p; j++) columns[j][i] = record[j];
  }
  const data = new Map<string, readonly string[]>();
  for (let j = 0; j < p; j++) data.set(header[j], columns[j]);
  return Object.freeze({ columns: Object.freeze([...header]), rows, data });
}

/** csv-parse's options, the same for text and for a stream. */
export function parserOptions(delimiter: string) {
  return {
    bom: true,
    delimiter,
    trim: true,
    relax_column_count: true, // ragged rows are reported by occam, with the row number
    skip_empty_lines: false,
  };
}

/** The error of text csv-parse cannot read. */
export function unparsable(error: unknown): OccamError {
  const detail = error instanceof Error ? error.message : String(error);
  return invalidData(`The CSV text could not be parsed: ${detail} Check the quoting near that line.`);
}

/** The error of a file or text with no header. */
export function emptyText(): OccamError {
  return invalidData(
    "The CSV text is empty: it needs a header row naming the columns, then one row per observation.",
  );
}

/** The error of a table with a header and no rows. */
export function noDataRows(): OccamError {
  return invalidData(
    "The CSV text has a header row but no data rows: add one row per observation below the header.",
  );
}

/** Refuses an empty or repeated column name; returns the header. */
export function checkHeader(header: string[]): string[] {
  const seen = new Map<string, number>();
  for (let j = 0; j < header.length; j++) {
    const name = header[j];
    if (name === "") {
      throw invalidData(
        `Column ${j + 1} of the header (row 1) has no name: give every column a name in the header row.`,
      );
    }
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      throw invalidData(
        `Duplicate column name "${name}" (columns ${earlier + 1} and ${j + 1} of the header): rename one of them so every column name is unique.`,
      );
    }
    seen.set(name, j);
  }
  return header;
}

/** The error of a row whose fields do not match the header's. */
export function raggedRow(record: readonly string[], row: number, p: number, delimiter: string): OccamError {
  const blank = isBlankRecord(record) ? " (the line is empty)" : "";
  return invalidData(
    `Row ${row} has ${record.length} field${record.length === 1 ? "" : "s"} but the header has ${p}${blank}: make every row have exactly ${p} fields separated by "${delimiter}".`,
  );
}

/** True for an empty line. */
export function isBlankRecord(record: readonly string[]): boolean {
  return record.length === 1 && record[0] === "";
}

/**
 * The columns of a CSV table, each typed when asked for: numbers, or text as a factor (see
 * {@link ColumnBuilder.typed}); the role ("target", "input") names the column's use in messages.
 */
export interface CsvColumns {
  /** Column names, in file order. */
  readonly columns: readonly string[];
  /** Number of data rows. */
  readonly rows: number;
  /**
   * The column as numbers or a factor. Throws an `invalid-data` OccamError naming row and column for
   * a missing cell, a number too large for a double, and a column that mixes numbers and text.
   */
  typed(name: string, role: string): TypedColumn;
}

/** The typed columns of a table already in memory (each built on first request). */
export function csvColumns(csv: CsvTable): CsvColumns {
  const built = new Map<string, ColumnBuilder>();
  return {
    columns: csv.columns,
    rows: csv.rows,
    typed(name, role) {
      let builder = built.get(name);
      if (builder === undefined) {
        builder = columnFromCells(name, csv.data.get(name) as readonly string[]);
        built.set(name, builder);
      }
      return builder.typed(role);
    },
  };
}

/** Options of {@link numericTable}. */
export interface NumericTableOptions {
  /** The name of the response column y. */
  target: string;
  /**
   * The names of the input columns, in the order of X's columns.
   * @defaultValue every column except the target, in file order
   */
  inputs?: readonly string[];
}

/** A numeric regression table: X (n × p row-major, no intercept column) and y. */
export interface NumericTable {
  /** The inputs, n × p row-major: X[i * p + j] is input j of observation i. */
  readonly X: Float64Array;
  /** The response, length n. */
  readonly y: Float64Array;
  /** The names of X's columns. */
  readonly inputNames: readonly string[];
  /** The name of y's column. */
  readonly targetName: string;
  /** Number of observations (data rows). */
  readonly n: number;
  /** Number of inputs (columns of X). */
  readonly p: number;
}

/**
 * The column `name` of `csv` as numbers (a binomial target's trials, a Poisson offset), read in `role`.
 * Throws an `invalid-data` OccamError for an unknown column (listing the columns) and a text column.
 */
export function namedNumericColumn(csv: CsvColumns, name: string, role: string): Float64Array {
  if (!csv.columns.includes(name)) {
    throw new OccamError(
      "invalid-data",
      `${role}: unknown column "${name}"; the columns are ${listColumns(csv.columns)}.`,
    );
  }
  const column = csv.typed(name, role);
  if (column.kind !== "numeric")
    throw new OccamError("invalid-data", `${role}: the column ${name} is text, not numbers.`);
  return column.values;
}

function listColumns(columns: readonly string[]): string {
  return columns.map((c) => `"${c}"`).join(", ");
}

function numericColumn(csv: CsvTable, name: string, role: string): Float64Array {
  return columnFromCells(name, csv.data.get(name) as readonly string[]).numeric(role);
}

/**
 * Builds a regression table from chosen numeric columns of a CSV table: y from `target`, X from
 * `inputs` (default: every other column), with no intercept column added and no value changed.
 * Throws an `invalid-data` OccamError for an unknown target or input name (listing the columns), an
 * input repeated or equal to the target, a missing value (empty cell, NA, NaN, N/A, null) or
 * non-numeric cell (naming row and column), a constant input or target column, and fewer rows than
 * inputs + 2.
 *
 * @example
 * const t = numericTable(parseCsv("a,b,y\n1,2,3\n2,1,5\n3,5,4\n4,3,8\n"), { target: "y" }); // t.p = 2
 */
export function numericTable(csv: CsvTable, options: NumericTableOptions): NumericTable {
  const { target } = options;
  if (!csv.data.has(target)) {
    throw invalidData(
      `Unknown target column "${target}": the columns are ${listColumns(csv.columns)}. Pass one of them as target.`,
    );
  }
  const inputs = options.inputs ?? csv.columns.filter((c) => c !== target);
  const seen = new Set<string>();
  for (const name of inputs) {
    if (!csv.data.has(name)) {
      throw invalidData(
        `Unknown input column "${name}": the columns are ${listColumns(csv.columns)}. Check the spelling in inputs.`,
      );
    }
    if (name === target) {
      throw invalidData(`Column "${name}" is both the target and an input: remove it from inputs.`);
    }
    if (seen.has(name))
      throw invalidData(`Input column "${name}" is listed twice in inputs: list each input once.`);
    seen.add(name);
  }
  const n = csv.rows;
  const p = inputs.length;
  if (n < p + 2) {
    throw invalidData(
      `The table has ${n} data row${n === 1 ? "" : "s"} for ${p} input${p === 1 ? "" : "s"}: a regression with an intercept needs at least inputs + 2 = ${p + 2} rows (one per weight, one for the intercept, one for the noise). Use fewer inputs or more rows.`,
    );
  }
  const y = numericColumn(csv, target, "target");
  if (isConstant(y)) {
    throw invalidData(
      `The target column "${target}" is constant (every row is ${y[0]}): there is nothing to explain. Choose another target.`,
    );
  }
  const X = new Float64Array(n * p);
  for (let j = 0; j < p; j++) {
    const column = numericColumn(csv, inputs[j], "input");
    if (isConstant(column)) {
      throw invalidData(
        `The input column "${inputs[j]}" is constant (every row is ${column[0]}): it duplicates the intercept and makes the design singular. Leave it out of inputs.`,
      );
    }
    for (let i = 0; i < n; i++) X[i * p + j] = column[i];
  }
  return Object.freeze({ X, y, inputNames: Object.freeze([...inputs]), targetName: target, n, p });
}

function isConstant(v: Float64Array): boolean {
  for (let i = 1; i < v.length; i++) if (v[i] !== v[0]) return false;
  return true;
}

/** The result of {@link standardize}. */
export interface Standardized {
  /** The standardized copy of X, n × p row-major: (X[i, j] − means[j]) / sds[j]. */
  readonly X: Float64Array;
  /** Column means. */
  readonly means: Float64Array;
  /** Column sample standard deviations (denominator n − 1, as R's `scale`). */
  readonly sds: Float64Array;
}

/**
 * A standardized copy of the n × p row-major matrix X: each column centred to mean 0 and scaled to
 * sample standard deviation 1 (denominator n − 1). X is not modified. Throws `invalid-data` for a
 * constant column (naming it by index) and `dimension-mismatch` when X's length is not n·p.
 */
export function standardize(X: ArrayLike<number>, n: number, p: number): Standardized {
  if (!(Number.isInteger(n) && n >= 2 && Number.isInteger(p) && p >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `standardize: need integers n ≥ 2 and p ≥ 1, got n = ${n}, p = ${p}.`,
    );
  }
  if (X.length !== n * p) {
    throw new OccamError(
      "dimension-mismatch",
      `standardize: X has length ${X.length}, expected n·p = ${n * p}; check n and p.`,
    );
  }
  const { means, variances } = columnMoments(X, n, p);
  const sds = new Float64Array(p);
  const out = new Float64Array(n * p);
  for (let j = 0; j < p; j++) {
    const mean = means[j];
    const sd = Math.sqrt(variances[j]);
    if (!(sd > 0 && Number.isFinite(sd))) {
      throw new OccamError(
        "invalid-data",
        `standardize: column ${j} has standard deviation ${sd}: a constant or non-finite column cannot be standardized; remove it.`,
      );
    }
    sds[j] = sd;
    for (let i = 0; i < n; i++) out[i * p + j] = (X[i * p + j] - mean) / sd;
  }
  return Object.freeze({ X: out, means, sds });
}
