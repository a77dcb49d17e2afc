/**
 * Classification tables for the mixture classifier: numeric inputs and a class-label target read
 * from a CSV table, with the checks a classifier needs (at least two classes, numeric inputs, test
 * classes seen in training).
 */
import type { CsvTable } from "../../data/csv.js";
import { invalidData, OccamError } from "../../errors.js";
import type { Rng } from "../../random/rng.js";

/** A classification data set: n × p inputs (row-major) and class indices into `classNames`. */
export interface ClassificationData {
  /** Inputs, n × p row-major. */
  readonly X: Float64Array;
  /** Class index of each row, in 0 … classNames.length − 1, or −1 for an unlabelled row. */
  readonly labels: Int32Array;
  /** Number of rows. */
  readonly n: number;
  /** Number of inputs. */
  readonly p: number;
  /** Names of the inputs (X's columns). */
  readonly inputNames: readonly string[];
  /** The class labels as written in the data, in index order. */
  readonly classNames: readonly string[];
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MISSING = new Set(["", "na", "nan", "n/a", "null", "?"]);

/** Sorts class labels: numerically when all are numbers, otherwise as strings. */
function sortClasses(names: string[]): string[] {
  const numeric = names.every((s) => NUMBER.test(s));
  return numeric ? names.sort((a, b) => Number(a) - Number(b)) : names.sort();
}

/**
 * The most classes a training target may have. Each class gets its own mixture of kernels fitted to its
 * own rows, so a few classes with many rows each is what the classifier can use; a column with more
 * distinct values than this (or than half its rows) is a measured quantity, not a label.
 */
export const MAX_CLASSES = 20;

/** Refuses a target with more classes than a classifier can learn from these rows (a continuous column). */
function checkClassCount(target: string, source: string, classNames: readonly string[], n: number): void {
  const limit = Math.min(MAX_CLASSES, Math.floor(n / 2));
  if (classNames.length <= limit) return;
  const numeric = classNames.every((c) => NUMBER.test(c));
  const shown = classNames
    .slice(0, 3)
    .map((c) => `"${c}"`)
    .join(", ");
  throw invalidData(
    `Column "${target}" (target) of ${source} has ${classNames.length} distinct values among ${n} rows (${shown}, …)` +
      (numeric ? ": it looks like a continuous quantity, not class labels. " : ": too many classes. ") +
      `A classifier of ${n} rows can learn at most ${limit} classes (never more than ${MAX_CLASSES}); ` +
      (numeric
        ? "to explain a numeric target use occam compare, or bin the column into a few classes."
        : "merge rare classes, or choose another target."),
  );
}

/**
 * Refuses training data with a class of fewer than two labelled rows: one row cannot show how a class
 * spreads, and its kernels would fit that single point. Given `whole`, the data before a split made
 * `train` (a stratified split keeps at least one row of each class for testing), the message says how
 * many rows each such class has in all and what to do.
 */
export function checkClassRows(train: ClassificationData, source: string, whole?: ClassificationData): void {
  const count = (data: ClassificationData) => {
    const counts = new Int32Array(data.classNames.length);
    for (const k of data.labels) if (k >= 0) counts[k]++;
    return counts;
  };
  const kept = count(train);
  const all = whole === undefined ? kept : count(whole);
  const thin = train.classNames.flatMap((_, k) => (kept[k] < 2 ? [k] : []));
  if (thin.length === 0) return;
  const list = thin
    .map((k) => `"${train.classNames[k]}" (${kept[k]}${whole === undefined ? "" : ` of ${all[k]}`})`)
    .join(", ");
  const advice =
    whole === undefined
      ? "Add rows of that class, or leave them out."
      : thin.some((k) => all[k] < 3)
        ? "A class needs three rows or more to be split into at least two training rows and a test row: add rows, or give a --test file."
        : "Hold out a smaller share for testing (a lower --split), or add rows.";
  throw invalidData(
    `The training rows of ${source} leave ${thin.length > 1 ? "classes" : "class"} ${list} with fewer than two rows: ` +
      `every class needs at least two training rows. ${advice}`,
  );
}

/** Options of {@link classificationTable}. */
export interface ClassificationTableOptions {
  /** The class-label column (strings or integers). */
  target: string;
  /**
   * The class names to use, in index order (to read a test file with the training file's classes).
   * A label outside this list is an error.
   * @defaultValue the distinct labels of the target column, sorted
   */
  classNames?: readonly string[];
  /**
   * The input columns, in order.
   * @defaultValue every column except the target, in file order
   */
  inputs?: readonly string[];
  /** Names the file in messages. @defaultValue "the data" */
  source?: string;
}

/**
 * Reads a classification table from a CSV table. Throws `invalid-data` for an unknown target or
 * input column, a missing or non-numeric input cell (naming row and column), a missing label, and —
 * when `classNames` is given — a label not among them; without `classNames`, for a target with more
 * than {@link MAX_CLASSES} classes or more than half as many as rows (a continuous column).
 */
export function classificationTable(csv: CsvTable, options: ClassificationTableOptions): ClassificationData {
  const { target } = options;
  const source = options.source ?? "the data";
  const columns = csv.columns.map((c) => `"${c}"`).join(", ");
  if (!csv.data.has(target)) {
    throw invalidData(`Unknown target column "${target}" in ${source}: the columns are ${columns}.`);
  }
  const inputs = options.inputs ?? csv.columns.filter((c) => c !== target);
  if (inputs.length === 0)
    throw invalidData(`${source} has no input columns besides the target "${target}".`);
  for (const name of inputs) {
    if (!csv.data.has(name))
      throw invalidData(`Unknown input column "${name}" in ${source}: the columns are ${columns}.`);
    if (name === target) throw invalidData(`Column "${name}" is both the target and an input.`);
  }
  const n = csv.rows;
  const p = inputs.length;
  const raw = csv.data.get(target) as readonly string[];
  for (let r = 0; r < n; r++) {
    if (MISSING.has(raw[r].toLowerCase())) {
      throw invalidData(
        `Row ${r + 2}, column "${target}" (target) of ${source}: missing class label. Fill it in or remove the row.`,
      );
    }
  }
  const classNames = options.classNames ? [...options.classNames] : sortClasses([...new Set(raw)]);
  if (options.classNames === undefined) checkClassCount(target, source, classNames, n);
  const index = new Map(classNames.map((c, k) => [c, k]));
  const labels = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const k = index.get(raw[r]);
    if (k === undefined) {
      throw invalidData(
        `Row ${r + 2}, column "${target}" of ${source}: the class "${raw[r]}" does not occur in the training data (its classes are ${classNames.join(", ")}); a classifier cannot predict a class it never saw.`,
      );
    }
    labels[r] = k;
  }
  const X = new Float64Array(n * p);
  for (let j = 0; j < p; j++) {
    const cells = csv.data.get(inputs[j]) as readonly string[];
    for (let r = 0; r < n; r++) {
      const cell = cells[r];
      const value = NUMBER.test(cell) ? Number(cell) : Number.NaN;
      if (!Number.isFinite(value)) {
        const what = MISSING.has(cell.toLowerCase()) ? "a missing value" : `"${cell}", not a number`;
        throw invalidData(
          `Row ${r + 2}, column "${inputs[j]}" (input) of ${source}: ${what}. The mixture classifier needs numeric inputs: fix the cell or drop the column.`,
        );
      }
      X[r * p + j] = value;
    }
  }
  return Object.freeze({
    X,
    labels,
    n,
    p,
    inputNames: Object.freeze([...inputs]),
    classNames: Object.freeze(classNames),
  });
}

/** The rows `rows` of a data set, in that order. */
export function selectRows(data: ClassificationData, rows: ArrayLike<number>): ClassificationData {
  const m = rows.length;
  const X = new Float64Array(m * data.p);
  const labels = new Int32Array(m);
  for (let r = 0; r < m; r++) {
    const src = rows[r];
    X.set(data.X.subarray(src * data.p, (src + 1) * data.p), r * data.p);
    labels[r] = data.labels[src];
  }
  return Object.freeze({ ...data, X, labels, n: m });
}

/**
 * A stratified split: in each class, a fraction `trainFraction` of its rows (rounded, at least one
 * when the class has two or more rows) goes to training, chosen at random by `rng`; the rest is the
 * test set. Rows keep their order within each part.
 */
export function stratifiedSplit(
  data: ClassificationData,
  trainFraction: number,
  rng: Rng,
): { train: ClassificationData; test: ClassificationData } {
  if (!(trainFraction > 0 && trainFraction < 1)) {
    throw new OccamError(
      "invalid-argument",
      `split: the training fraction must lie in (0, 1), got ${trainFraction}.`,
    );
  }
  const K = data.classNames.length;
  const inTrain = new Uint8Array(data.n);
  for (let k = 0; k < K; k++) {
    const rows: number[] = [];
    for (let r = 0; r < data.n; r++) if (data.labels[r] === k) rows.push(r);
    // Fisher–Yates on this class's rows.
    for (let i = rows.length - 1; i > 0; i--) {
      const j = rng.integer(i + 1);
      const t = rows[i];
      rows[i] = rows[j];
      rows[j] = t;
    }
    let take = Math.round(trainFraction * rows.length);
    if (rows.length >= 2) take = Math.min(rows.length - 1, Math.max(1, take));
    for (let i = 0; i < take; i++) inTrain[rows[i]] = 1;
  }
  const train: number[] = [];
  const test: number[] = [];
  for (let r = 0; r < data.n; r++) (inTrain[r] ? train : test).push(r);
  return { train: selectRows(data, train), test: selectRows(data, test) };
}
