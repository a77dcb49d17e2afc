/**
 * Model formulas in R's syntax for the terms occam supports — `y ~ a + b + a:b`, `y ~ a*b` (= a + b +
 * a:b), `y ~ (a + b)*c`, `y ~ . - c` — and the design they make from a CSV table: numeric columns as they
 * are, text columns as factors dummy-coded against their first level (columns named `column=level`),
 * interactions as products of their variables' columns. Each term owns a contiguous run of columns and
 * enters or leaves a model as a whole.
 */

import { invalidArgument, OccamError } from "../errors.js";
import type { TypedColumn } from "./columns.js";
import type { CsvColumns } from "./csv.js";
import type { DesignTerm, FactorSummary, LinearData, LinearDesign, RandomTerm } from "./design.js";
import { GROUPING_ROLE } from "./new-rows.js";

/** A parsed formula: the target and the terms, each a list of variables (a main effect has one). */
export interface Formula {
  readonly target: string;
  /** Terms as lists of column names; `.` stands for every other column (see `dot`). */
  readonly terms: readonly (readonly string[])[];
  /** True when the right side used `.`; its terms are expanded by {@link formulaDesign}. */
  readonly dot: boolean;
  /** Random terms, `(1 | g)`, `(x | g)`, `(0 + x | g)`, in the order written. */
  readonly random?: readonly RandomTermSpec[];
}

/** A random term of a formula: effects that vary by the levels of a grouping column. */
export interface RandomTermSpec {
  /** As occam prints it: `(1 | g)`, `(x | g)`, `(0 + x | g)`. */
  readonly name: string;
  /** True unless the term says `0 +`: a random intercept per group. */
  readonly intercept: boolean;
  /** Numeric columns with a random slope per group. */
  readonly slopes: readonly string[];
  /** The grouping column. */
  readonly group: string;
}

type TermSet = string[][];

/** Tokens: names (plain or `backquoted`), `.`, numbers 0/1, and the operators ~ + - * : ( ). */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/.test(ch)) i++;
    else if ("~+-*:().|".includes(ch) && !(ch === "." && /[\w.]/.test(text[i + 1] ?? ""))) {
      tokens.push(ch);
      i++;
    } else if (ch === "`") {
      const end = text.indexOf("`", i + 1);
      if (end < 0)
        throw invalidArgument(
          "",
          `--formula: the name starting at "${text.slice(i)}" has no closing backquote.`,
        );
      tokens.push(`\`${text.slice(i + 1, end)}`);
      i = end + 1;
    } else {
      const match = /^[A-Za-z0-9_.]+/.exec(text.slice(i));
      if (!match)
        throw invalidArgument(
          "",
          `--formula: unexpected "${ch}" in "${text}"; occam reads + - * : ( ) | and . in formulas.`,
        );
      tokens.push(`\`${match[0]}`);
      i += match[0].length;
    }
  }
  return tokens;
}

/** The terms without repeats (whatever the order of an interaction's variables), first seen first. */
function uniqueTerms(set: TermSet): TermSet {
  const seen = new Set<string>();
  return set.filter((t) => {
    const key = termKey(t);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Every term of `a` crossed with every term of `b` (a:b), without repeats. */
function crossTerms(a: TermSet, b: TermSet): TermSet {
  return uniqueTerms(a.flatMap((x) => b.map((y) => [...x, ...y.filter((v) => !x.includes(v))])));
}

/**
 * A recursive-descent reader of a formula's tokens: a sum of products of interactions of atoms (a
 * name, `.`, or a parenthesised sum), and random terms `( effects | group )` at the top level.
 */
class FormulaParser {
  private at = 2;
  /** True once `.` was read. */
  dot = false;
  readonly random: RandomTermSpec[] = [];

  constructor(
    private readonly tokens: readonly string[],
    private readonly text: string,
  ) {}

  /** The formula's terms after `~`, all of them read. */
  terms(): TermSet {
    const terms = this.sum();
    if (this.at !== this.tokens.length)
      throw invalidArgument("", `--formula: unexpected "${this.rest()}" in "${this.text}".`);
    return terms;
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }

  /** The rest of the formula from the current token, as the user wrote it (a name's token starts with a backquote). */
  private rest(): string {
    return this.tokens
      .slice(this.at)
      .map((t) => (t.startsWith("`") ? t.slice(1) : t))
      .join(" ");
  }

  private expect(what: string): void {
    if (this.tokens[this.at] !== what)
      throw invalidArgument("", `--formula: expected "${what}" at "${this.rest()}" in "${this.text}".`);
    this.at++;
  }

  private atom(): TermSet {
    const t = this.peek();
    if (t === "(") {
      this.at++;
      const inner = this.sum();
      this.expect(")");
      return inner;
    }
    if (t === ".") {
      this.at++;
      this.dot = true;
      return [["."]];
    }
    if (t === "`1" || t === "`0") {
      throw invalidArgument(
        "",
        `--formula: occam puts the intercept in every model; leave out "${t.slice(1)}" (use --no-intercept with --prior nig to drop it).`,
      );
    }
    if (t?.startsWith("`")) {
      this.at++;
      return [[t.slice(1)]];
    }
    throw invalidArgument(
      "",
      `--formula: expected a column name at "${this.rest() || "the end"}" in "${this.text}".`,
    );
  }

  private interaction(): TermSet {
    let set = this.atom();
    while (this.peek() === ":") {
      this.at++;
      set = crossTerms(set, this.atom());
    }
    return set;
  }

  private product(): TermSet {
    let set = this.interaction();
    while (this.peek() === "*") {
      this.at++;
      const other = this.interaction();
      set = uniqueTerms([...set, ...other, ...crossTerms(set, other)]);
    }
    return set;
  }

  /** `( effects | group )` at the formula's top level: true when the parenthesis here holds a bar. */
  private barAhead(): boolean {
    if (this.peek() !== "(") return false;
    for (let j = this.at + 1, depth = 1; j < this.tokens.length && depth > 0; j++) {
      if (this.tokens[j] === "(") depth++;
      else if (this.tokens[j] === ")") depth--;
      else if (this.tokens[j] === "|" && depth === 1) return true;
    }
    return false;
  }

  private randomTerm(): void {
    const { text } = this;
    this.expect("(");
    let intercept = true;
    const slopes: string[] = [];
    for (;;) {
      const t = this.peek();
      if (t === "`1" || t === "`0") intercept = t === "`1";
      else if (t?.startsWith("`")) slopes.push(t.slice(1));
      else
        throw invalidArgument(
          "",
          `--formula: a random term reads "(1 | g)", "(x | g)" or "(0 + x | g)"; got "${this.rest()}" in "${text}".`,
        );
      this.at++;
      if (this.peek() === "|") break;
      this.expect("+");
    }
    this.expect("|");
    if (this.peek() === "|") {
      throw invalidArgument(
        "",
        `--formula: occam does not read "||"; write "(x | g)" (its effects correlated) in "${text}".`,
      );
    }
    const group = this.peek();
    if (!group?.startsWith("`"))
      throw invalidArgument(
        "",
        `--formula: expected a grouping column after "|" at "${this.rest()}" in "${text}".`,
      );
    this.at++;
    this.expect(")");
    if (!intercept && slopes.length === 0)
      throw invalidArgument("", `--formula: the random term "(0 | ${group.slice(1)})" has no effects.`);
    const effects = [...(intercept && slopes.length === 0 ? ["1"] : intercept ? [] : ["0"]), ...slopes];
    this.random.push({
      name: `(${effects.join(" + ")} | ${group.slice(1)})`,
      intercept,
      slopes,
      group: group.slice(1),
    });
  }

  private sum(): TermSet {
    let set: TermSet = [];
    if (this.barAhead()) this.randomTerm();
    else if (this.peek() !== "-") set = this.product();
    while (this.peek() === "+" || this.peek() === "-") {
      const op = this.tokens[this.at++];
      if (op === "+" && this.barAhead()) {
        this.randomTerm();
        continue;
      }
      const other = this.product();
      if (op === "+") set = uniqueTerms([...set, ...other]);
      else {
        const drop = new Set(other.map(termKey));
        set = set.filter((t) => !drop.has(termKey(t)));
      }
    }
    return set;
  }
}

/**
 * Parses `target ~ terms`. Throws an `invalid-argument` OccamError for anything outside the supported
 * syntax (names, `.`, `+`, `-`, `*`, `:`, parentheses), with what to write instead.
 */
export function parseFormula(text: string): Formula {
  const tokens = tokenize(text);
  const tilde = tokens.indexOf("~");
  if (tilde !== 1 || !tokens[0].startsWith("`")) {
    throw invalidArgument("", `--formula must read "target ~ terms", e.g. "y ~ a + b + a:b"; got "${text}".`);
  }
  const target = tokens[0].slice(1);
  const parser = new FormulaParser(tokens, text);
  const terms = parser.terms();
  const { random, dot } = parser;
  if (terms.some((t) => t.length > 1 && t.includes("."))) {
    throw invalidArgument("", '--formula: write interactions with named columns, not with ".".');
  }
  const names = random.map((r) => r.name);
  const repeated = random.find((r, j) => random.findIndex((o) => o.group === r.group) !== j);
  if (repeated !== undefined) {
    throw invalidArgument(
      "",
      `--formula: two random terms group by ${repeated.group} (${names.join(", ")}); write one, e.g. "(x | ${repeated.group})" for a random intercept and slope.`,
    );
  }
  return { target, terms, dot, random };
}

/** One variable's columns in a term: a numeric column, or a factor's dummies. */
interface VariableColumns {
  names: string[];
  value: (row: number, j: number) => number;
}

function variableColumns(name: string, column: TypedColumn): VariableColumns {
  if (column.kind === "numeric") return { names: [name], value: (row) => column.values[row] };
  const { levels, codes } = column;
  return {
    names: levels.slice(1).map((level) => `${name}=${level}`),
    value: (row, j) => (codes[row] === j + 1 ? 1 : 0),
  };
}

/** Checks a factor: at least two levels, each seen at least twice. */
function checkFactor(name: string, column: TypedColumn & { kind: "factor" }): void {
  if (column.levels.length < 2) {
    throw new OccamError(
      "invalid-data",
      `Column "${name}" is text with one level ("${column.levels[0]}"): as a factor it is constant and duplicates the intercept. Leave it out.`,
    );
  }
  const counts = new Int32Array(column.levels.length);
  for (const c of column.codes) counts[c]++;
  const once = column.levels.filter((_, j) => counts[j] === 1);
  if (once.length > 0) {
    throw new OccamError(
      "invalid-data",
      `Column "${name}" is a factor whose level${once.length > 1 ? "s" : ""} ${once.map((l) => `"${l}"`).join(", ")} ${once.length > 1 ? "are" : "is"} seen in only one row: its coefficient would fit that row exactly. Merge rare levels, or leave the column out.`,
    );
  }
}

/** A random term's groups (each distinct value of its column, numbers included, is a level) and slopes. */
function randomTerm(csv: CsvColumns, spec: RandomTermSpec, target: string): RandomTerm {
  if (spec.group === target || spec.slopes.includes(target)) {
    throw invalidArgument("", `the target ${target} cannot be in the random term ${spec.name}.`);
  }
  const column = csv.typed(spec.group, GROUPING_ROLE);
  const values =
    column.kind === "factor"
      ? Array.from(column.codes, (c) => column.levels[c])
      : Array.from(column.values, (v) => String(v));
  const levels = [...new Set(values)].sort();
  if (levels.length < 2) {
    throw new OccamError(
      "invalid-data",
      `The grouping column "${spec.group}" of ${spec.name} has one level ("${levels[0]}"): a random effect needs at least two groups. Leave the term out.`,
    );
  }
  const index = new Map(levels.map((level, j) => [level, j]));
  const slopeValues = spec.slopes.map((name) => {
    const slope = csv.typed(name, "random slope");
    if (slope.kind !== "numeric") {
      throw new OccamError(
        "invalid-data",
        `The random slope "${name}" of ${spec.name} is text: a random slope needs a numeric column (for a factor, give each level its own 0/1 column).`,
      );
    }
    return slope.values;
  });
  return {
    group: spec.group,
    levels,
    codes: Int32Array.from(values, (v) => index.get(v) as number),
    intercept: spec.intercept,
    slopes: spec.slopes,
    slopeValues,
  };
}

/**
 * The formula's fixed terms as variable lists: `.` expanded to every other column but the target and
 * the grouping ones, duplicates dropped, ordered by degree (stable); each variable checked by `known`.
 */
function expandedTerms(
  csv: CsvColumns,
  formula: Formula,
  known: (name: string, what: string) => void,
): string[][] {
  const { target } = formula;
  const groups = new Set((formula.random ?? []).map((r) => r.group));
  const raw = formula.terms.flatMap((t) =>
    t[0] === "." ? csv.columns.filter((c) => c !== target && !groups.has(c)).map((c) => [c]) : [[...t]],
  );
  const terms = uniqueTerms(raw).sort((x, y) => x.length - y.length);
  for (const t of terms) for (const v of t) known(v, "column");
  for (const t of terms) {
    if (t.includes(target))
      throw invalidArgument(
        "",
        `Column "${target}" is both the target and an input: remove it from the inputs.`,
      );
  }
  return terms;
}

/** A term's key, whatever the order of its variables: `a:b` for `b:a`. */
function termKey(t: readonly string[]): string {
  return [...t].sort().join(":");
}

/**
 * The parents of each term (the indices of its lower-order terms) under heredity, none without; throws
 * an `invalid-data` OccamError for an interaction whose lower-order terms the formula lacks.
 */
function heredityParents(terms: readonly string[][], heredity: boolean): (t: string[]) => number[] {
  const index = new Map(terms.map((t, j) => [termKey(t), j]));
  return (t) => {
    if (!heredity || t.length === 1) return [];
    const parents: number[] = [];
    for (let mask = 1; mask < (1 << t.length) - 1; mask++) {
      const sub = t.filter((_, i) => mask & (1 << i));
      const j = index.get(termKey(sub));
      if (j === undefined) {
        throw new OccamError(
          "invalid-data",
          `The interaction "${t.join(":")}" needs "${sub.join(":")}" in the formula too (heredity: an interaction enters a model only with its main effects, as BAS's force.heredity has it). Add it, or give --no-heredity.`,
        );
      }
      parents.push(j);
    }
    return parents;
  };
}

/**
 * The design of a formula on a CSV table: the target (numeric), every term's columns (a factor's
 * dummies, interactions as products), terms ordered by degree then as written, and with `heredity` each
 * interaction's parents (its lower-order terms, which the formula must then contain). Throws an
 * `invalid-data` OccamError for an unknown column, a text target, a factor with one level or a level
 * seen once, an interaction whose main effects are missing under heredity, and too few rows.
 */
export function formulaDesign(csv: CsvColumns, formula: Formula, options: { heredity: boolean }): LinearData {
  const { target } = formula;
  const present = new Set(csv.columns);
  const known = (name: string, what: string) => {
    if (!present.has(name)) {
      throw new OccamError(
        "invalid-data",
        `Unknown ${what} "${name}": the columns are ${csv.columns.map((c) => `"${c}"`).join(", ")}. Check the spelling.`,
      );
    }
  };
  known(target, "target column");
  const yColumn = csv.typed(target, "target");
  if (yColumn.kind !== "numeric") {
    throw new OccamError(
      "invalid-data",
      `The target column "${target}" is text: occam compare explains a numeric target (for a class label, use occam select-inputs).`,
    );
  }
  const terms = expandedTerms(csv, formula, known);
  const parentsOf = heredityParents(terms, options.heredity);
  const columns = new Map<string, TypedColumn>();
  const factors: FactorSummary[] = [];
  for (const t of terms) {
    for (const v of t) {
      if (columns.has(v)) continue;
      const c = csv.typed(v, "input");
      if (c.kind === "factor") {
        checkFactor(v, c);
        factors.push({ name: v, levels: [...c.levels], reference: c.levels[0] });
      }
      columns.set(v, c);
    }
  }
  // Each term's columns: the product of its variables' columns, every combination of them.
  const names: string[] = [];
  const makers: ((row: number) => number)[] = [];
  const designTerms: DesignTerm[] = terms.map((t) => {
    let combos: { name: string; value: (row: number) => number }[] = [{ name: "", value: () => 1 }];
    for (const v of t) {
      const vc = variableColumns(v, columns.get(v) as TypedColumn);
      combos = combos.flatMap((c) =>
        vc.names.map((n, j) => ({
          name: c.name === "" ? n : `${c.name}:${n}`,
          value: (row: number) => c.value(row) * vc.value(row, j),
        })),
      );
    }
    const first = names.length;
    for (const c of combos) {
      names.push(c.name);
      makers.push(c.value);
    }
    return { name: t.join(":"), columns: combos.map((_, j) => first + j), parents: parentsOf(t) };
  });
  for (const spec of formula.random ?? []) {
    known(spec.group, "grouping column");
    for (const v of spec.slopes) known(v, "column");
    designTerms.push({
      name: spec.name,
      columns: [],
      parents: [],
      random: randomTerm(csv, spec, target),
    });
  }
  const n = csv.rows;
  const P = names.length;
  if (n < P + 2) {
    throw new OccamError(
      "invalid-data",
      `The table has ${n} data row${n === 1 ? "" : "s"} for ${P} input column${P === 1 ? "" : "s"}: a regression with an intercept needs at least ${P + 2} rows (one per coefficient, one for the intercept, one for the noise). Use fewer inputs or more rows.`,
    );
  }
  const X = new Float64Array(n * P);
  for (let i = 0; i < n; i++) for (let j = 0; j < P; j++) X[i * P + j] = makers[j](i);
  const design: LinearDesign = {
    X,
    y: yColumn.values,
    n,
    columns: P,
    columnNames: names,
    terms: designTerms,
  };
  return { design, targetName: target, factors };
}
