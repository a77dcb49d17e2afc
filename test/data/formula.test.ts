import { describe, expect, it } from "vitest";
import { csvColumns, parseCsv } from "../../src/data/csv.js";
import { formulaDesign, parseFormula } from "../../src/data/formula.js";

describe("parseFormula", () => {
  it("reads main effects, products with their margins, interactions and removals", () => {
    const f = parseFormula("y ~ a*b + c - a:b + `odd name`");
    expect(f.target).toBe("y");
    expect(f.terms).toEqual([["a"], ["b"], ["c"], ["odd name"]]);
  });

  it("quotes the formula as the user wrote it in its errors", () => {
    expect(() => parseFormula("alcohol ~ ~ proline")).toThrow(
      'expected a column name at "~ proline" in "alcohol ~ ~ proline"',
    );
    expect(() => parseFormula("y ~ (a + b")).toThrow('expected ")" at "" in "y ~ (a + b"');
    expect(() => parseFormula("y ~ a b")).toThrow('unexpected "b" in "y ~ a b"');
    expect(() => parseFormula("y ~ a +")).toThrow('expected a column name at "the end"');
    expect(() => parseFormula("y ~ `a")).toThrow("has no closing backquote");
  });

  it("reads random terms: an intercept, a slope with its intercept, a slope alone, beside fixed terms", () => {
    const f = parseFormula("y ~ a + (1 | g) + b*c + (1 + a | h) + (0 + b | k)");
    expect(f.terms).toEqual([["a"], ["b"], ["c"], ["b", "c"]]);
    expect(f.random).toEqual([
      { name: "(1 | g)", intercept: true, slopes: [], group: "g" },
      { name: "(a | h)", intercept: true, slopes: ["a"], group: "h" },
      { name: "(0 + b | k)", intercept: false, slopes: ["b"], group: "k" },
    ]);
    expect(parseFormula("y ~ (x|g)").random?.[0].name).toBe("(x | g)");
    expect(() => parseFormula("y ~ (0 | g)")).toThrow("has no effects");
    expect(() => parseFormula("y ~ (x | )")).toThrow("expected a grouping column");
  });

  it("gives a random term its groups (numbers as levels too), and leaves the grouping column out of `.`", () => {
    const csv = csvColumns(parseCsv("y,x,g\n1,0.5,3\n0,1.5,3\n1,2.5,7\n0,0.1,7\n1,0.7,12\n"));
    const { design } = formulaDesign(csv, parseFormula("y ~ . + (x | g)"), { heredity: true });
    expect(design.columnNames).toEqual(["x"]);
    expect(design.terms.map((t) => t.name)).toEqual(["x", "(x | g)"]);
    const random = design.terms[1].random;
    expect(random?.levels).toEqual(["12", "3", "7"]);
    expect(Array.from(random?.codes ?? [])).toEqual([1, 1, 2, 2, 0]);
    expect(Array.from(random?.slopeValues[0] ?? [])).toEqual([0.5, 1.5, 2.5, 0.1, 0.7]);
  });
});
