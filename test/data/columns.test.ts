import { describe, expect, it } from "vitest";
import { ColumnBuilder, columnFromCells } from "../../src/data/columns.js";

describe("ColumnBuilder", () => {
  it("reads numbers into a Float64Array, growing past its first capacity", () => {
    const b = new ColumnBuilder("x", 1);
    const cells = Array.from({ length: 100 }, (_, i) => String(i * 0.5 - 3));
    for (const c of cells) b.push(c);
    expect(b.length).toBe(100);
    const t = b.typed("input");
    expect(t.kind).toBe("numeric");
    expect(Array.from(t.kind === "numeric" ? t.values : [])).toEqual(cells.map(Number));
  });

  it("reads text as a factor with sorted levels, whatever the order the levels appear in", () => {
    const t = columnFromCells("f", ["pear", "apple", "fig", "apple", "pear"]).typed("input");
    expect(t).toEqual({
      kind: "factor",
      levels: ["apple", "fig", "pear"],
      codes: Int32Array.from([2, 0, 1, 0, 2]),
    });
  });

  it("names the first missing cell, in either role", () => {
    expect(() => columnFromCells("x", ["1", "2", "NA", ""]).typed("target")).toThrow(
      'Row 4, column "x" (target): missing value ("NA")',
    );
    expect(() => columnFromCells("f", ["a", "", "b"]).typed("input")).toThrow(
      'Row 3, column "f" (input): missing value (an empty cell)',
    );
  });

  it("names a number and a text cell of a mixed column, whichever comes first", () => {
    expect(() => columnFromCells("x", ["1", "2", "three"]).typed("input")).toThrow(
      'Column "x" (input) mixes numbers (row 2: "1") and text (row 4: "three")',
    );
    expect(() => columnFromCells("x", ["one", "2"]).typed("input")).toThrow(
      'mixes numbers (row 3: "2") and text (row 2: "one")',
    );
  });

  it("as numbers, refuses the first cell that is text, missing or too large", () => {
    expect(() => columnFromCells("x", ["1", "1e999", "NA"]).numeric("input")).toThrow(
      'Row 3, column "x" (input): "1e999" is not a finite number',
    );
    expect(() => columnFromCells("y", ["1", "abc", "NA"]).numeric("target")).toThrow(
      'Row 3, column "y" (target): "abc" is not a finite number',
    );
    expect(() => columnFromCells("y", ["", "abc"]).numeric("target")).toThrow("Row 2");
  });
});
