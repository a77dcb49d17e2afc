/**
 * Classification tables for the classifier families: numeric inputs and declared factors (expanded to
 * indicator columns), a class target with at least two classes, test tables read with the training
 * table's classes and factor levels, and inputs standardised by the training rows alone.
 */
import type { CsvTable } from "../../data/csv.js";
import { standardize } from "../../data/csv.js";
import { invalidData, OccamError } from "../../errors.js";
import type { Rng } from "../../random/rng.js";
import type { ClassificationData } from "../mixture-classifier/data.js";

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MISSING = new Set(["", "na", "nan", "n/a", "null", "?"]);

/** Options of {@link classifierTable}. */
export interface ClassifierTableOptions {
  /** The class-label column. */
  target: string;
  /**
   * Columns to read as factors (categories): each becomes one indicator column per level except the
   * first (in sorted order), so that a factor with L levels adds L − 1 inputs.
   * @defaultValue none: every input must be numeric
   */
  factors?: readonly string[];
  /**
   * The input columns, in order.
   * @defaultValue every column except the target, in file order
   */
  inputs?: readonly string[];
  /** Names the file in messages. @defaultValue "the data" */
  source?: string;
}

/** How a training table was encoded, so that a test table can be read the same way. */
export interface ClassifierEncoding {
  readonly target: string;
  readonly classNames: readonly string[];
  /** The input columns in order; a factor lists its levels (the first is the reference level). */
  readonly columns: readonly { readonly name: string; readonly levels?: readonly string[] }[];
}

/** A training table and how it was encoded. */
export interface EncodedClassifierTable {
  readonly data: ClassificationData;
  readonly encoding: ClassifierEncoding;
}

function sortLabels(names: string[]): string[] {
  const numeric = names.every((s) => NUMBER.test(s));
  return numeric ? names.sort((a, b) => Number(a) - Number(b)) : names.sort();
}

/**
 * Reads a training table for the classifier families. Throws `invalid-data` for an unknown target,
 * input or factor column, a missing class label, a target with a single class (a classifier needs
 * two), a missing cell, and a non-numeric cell in a column not declared a factor (naming the row and
 * column and saying how to declare it).
 *
 * @example
 * const { data, encoding } = classifierTable(readCsv("train.csv"), { target: "class", factors: ["sex"] });
 */
export function classifierTable(csv: CsvTable, options: ClassifierTableOptions): EncodedClassifierTable {
  const source = options.source ?? "the data";
  const inputs = checkColumns(csv, options, source);
  const factors = new Set(options.factors ?? []);
  const raw = targetCells(csv, options.target, source);
  const classNames = sortLabels([...new Set(raw)]);
  if (classNames.length < 2) {
    throw invalidData(
      `The target "${options.target}" of ${source} has a single class "${classNames[0]}": a classifier needs at least two classes in the training data.`,
    );
  }
  const columns = inputs.map((name) => {
    if (!factors.has(name)) return Object.freeze({ name });
    const cells = csv.data.get(name) as readonly string[];
    const levels = sortLabels([...new Set(cells)]);
    if (levels.length < 2) {
      throw invalidData(
        `Factor "${name}" of ${source} has a single level "${levels[0]}": it cannot inform a classifier; drop it.`,
      );
    }
    return Object.freeze({ name, levels: Object.freeze(levels) });
  });
  const encoding: ClassifierEncoding = Object.freeze({
    target: options.target,
    classNames: Object.freeze(classNames),
    columns: Object.freeze(columns),
  });
  return Object.freeze({ data: encodeClassifierTable(csv, encoding, source), encoding });
}

function checkColumns(csv: CsvTable, options: ClassifierTableOptions, source: string): readonly string[] {
  const { target } = options;
  const listed = csv.columns.map((c) => `"${c}"`).join(", ");
  if (!csv.data.has(target))
    throw invalidData(`Unknown target column "${target}" in ${source}: the columns are ${listed}.`);
  const inputs = options.inputs ?? csv.columns.filter((c) => c !== target);
  if (inputs.length === 0)
    throw invalidData(`${source} has no input columns besides the target "${target}".`);
  for (const name of [...inputs, ...(options.factors ?? [])]) {
    if (!csv.data.has(name))
      throw invalidData(`Unknown column "${name}" in ${source}: the columns are ${listed}.`);
    if (name === target)
      throw invalidData(`Column "${name}" is the target; it cannot also be an input or a factor.`);
  }
  for (const name of options.factors ?? []) {
    if (!inputs.includes(name)) throw invalidData(`Factor "${name}" is not among the input columns.`);
  }
  return inputs;
}

function targetCells(csv: CsvTable, target: string, source: string): readonly string[] {
  const raw = csv.data.get(target) as readonly string[];
  for (let r = 0; r < raw.length; r++) {
    if (MISSING.has(raw[r].toLowerCase())) {
      throw invalidData(
        `Row ${r + 2}, column "${target}" (target) of ${source}: missing class label. Fill it in or remove the row.`,
      );
    }
  }
  return raw;
}

/**
 * Reads a table (a test set) with a training table's encoding: the same classes, inputs and factor
 * levels. Throws `invalid-data` for a class or a factor level the training data never showed (a
 * classifier cannot predict a class it never saw), a missing column, and the cells
 * {@link classifierTable} refuses.
 */
export function encodeClassifierTable(
  csv: CsvTable,
  encoding: ClassifierEncoding,
  source = "the data",
): ClassificationData {
  const { target, classNames, columns } = encoding;
  for (const name of [target, ...columns.map((c) => c.name)]) {
    if (!csv.data.has(name))
      throw invalidData(`${source} has no column "${name}", which the training data has.`);
  }
  const n = csv.rows;
  const raw = targetCells(csv, target, source);
  const index = new Map(classNames.map((c, k) => [c, k]));
  const labels = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const k = index.get(raw[r]);
    if (k === undefined) {
      throw invalidData(
        `Row ${r + 2}, column "${target}" of ${source}: the class "${raw[r]}" is absent from the training data (its classes are ${classNames.join(", ")}); a classifier cannot predict a class it never saw.`,
      );
    }
    labels[r] = k;
  }
  const inputNames: string[] = [];
  for (const c of columns) {
    if (c.levels === undefined) inputNames.push(c.name);
    else for (const level of c.levels.slice(1)) inputNames.push(`${c.name}=${level}`);
  }
  const p = inputNames.length;
  const X = new Float64Array(n * p);
  let j = 0;
  for (const c of columns) {
    const cells = csv.data.get(c.name) as readonly string[];
    if (c.levels === undefined) {
      for (let r = 0; r < n; r++) X[r * p + j] = numericCell(cells[r], r, c.name, source);
      j++;
      continue;
    }
    const levels = c.levels;
    for (let r = 0; r < n; r++) {
      const level = levels.indexOf(cells[r]);
      if (level < 0) {
        throw invalidData(
          `Row ${r + 2}, column "${c.name}" (factor) of ${source}: the level "${cells[r]}" is absent from the training data (its levels are ${levels.join(", ")}).`,
        );
      }
      if (level > 0) X[r * p + j + level - 1] = 1;
    }
    j += levels.length - 1;
  }
  return Object.freeze({
    X,
    labels,
    n,
    p,
    inputNames: Object.freeze(inputNames),
    classNames,
  });
}

function numericCell(cell: string, r: number, column: string, source: string): number {
  const value = NUMBER.test(cell) ? Number(cell) : Number.NaN;
  if (Number.isFinite(value)) return value;
  if (MISSING.has(cell.toLowerCase())) {
    throw invalidData(
      `Row ${r + 2}, column "${column}" (input) of ${source}: a missing value. Fill it in or remove the row; occam does not impute.`,
    );
  }
  throw invalidData(
    `Row ${r + 2}, column "${column}" (input) of ${source}: "${cell}" is not a number. Declare the column a factor (--factors ${column}) if it holds categories, or drop it.`,
  );
}

/** Training and test inputs on the training rows' scale. */
export interface StandardizedClassifierData {
  readonly train: ClassificationData;
  readonly test: ClassificationData | null;
  /** The training means and sample standard deviations (n − 1) of each input. */
  readonly means: Float64Array;
  readonly sds: Float64Array;
}

/**
 * Standardises the inputs by the training rows' means and standard deviations (the test rows, when
 * given, on the same scale: a test set must not inform the scale the model is fitted on). The
 * families' priors are written for inputs of unit scale. Throws `invalid-data` for an input that is
 * constant in the training rows, naming it.
 */
export function standardizeClassifierInputs(
  train: ClassificationData,
  test: ClassificationData | null = null,
): StandardizedClassifierData {
  const { n, p } = train;
  for (let j = 0; j < p; j++) {
    let constant = true;
    for (let r = 1; r < n && constant; r++) constant = train.X[r * p + j] === train.X[j];
    if (constant) {
      throw invalidData(
        `Input "${train.inputNames[j]}" takes one value in every training row: it cannot inform a classifier; drop it.`,
      );
    }
  }
  if (test !== null && test.p !== p) {
    throw new OccamError(
      "dimension-mismatch",
      `the test data have ${test.p} inputs, the training data ${p}.`,
    );
  }
  const s = standardize(train.X, n, p);
  let testX: Float64Array | null = null;
  if (test !== null) {
    testX = new Float64Array(test.n * p);
    for (let r = 0; r < test.n; r++) {
      for (let j = 0; j < p; j++) testX[r * p + j] = (test.X[r * p + j] - s.means[j]) / s.sds[j];
    }
  }
  return Object.freeze({
    train: Object.freeze({ ...train, X: s.X }),
    test: test === null || testX === null ? null : Object.freeze({ ...test, X: testX }),
    means: s.means,
    sds: s.sds,
  });
}

/** Number of training rows of each class. */
export function classCounts(data: ClassificationData): Int32Array {
  const counts = new Int32Array(data.classNames.length);
  for (let r = 0; r < data.n; r++) counts[data.labels[r]]++;
  return counts;
}

/**
 * G folds of the rows, stratified by class: each class's rows are shuffled by `rng` and dealt in turn
 * to the folds (the deal continuing from class to class, so fold sizes differ by at most one). Every
 * fold then holds about the same share of each class, and a class with at least G rows appears in
 * every fold. Each fold is sorted.
 */
export function stratifiedFolds(labels: Int32Array, classes: number, G: number, rng: Rng): Int32Array[] {
  if (!(Number.isInteger(G) && G >= 2 && G <= labels.length)) {
    throw new OccamError(
      "invalid-argument",
      `stratifiedFolds: need an integer number of folds in [2, ${labels.length}], got ${G}.`,
    );
  }
  const folds: number[][] = Array.from({ length: G }, () => []);
  let next = 0;
  for (let k = 0; k < classes; k++) {
    const rows: number[] = [];
    for (let r = 0; r < labels.length; r++) if (labels[r] === k) rows.push(r);
    for (let i = rows.length - 1; i > 0; i--) {
      const j = rng.integer(i + 1);
      const t = rows[i];
      rows[i] = rows[j];
      rows[j] = t;
    }
    for (const r of rows) {
      folds[next].push(r);
      next = (next + 1) % G;
    }
  }
  return folds.map((f) => Int32Array.from(f).sort());
}
