import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvColumns, numericTable, parseCsv, standardize } from "../../src/data/csv.js";
import { readCsv, readCsvColumns } from "../../src/data/csv-file.js";
import { OccamError } from "../../src/errors.js";

/** Runs `f`, expecting an OccamError with `code` whose message contains every fragment. */
function expectOccamError(f: () => unknown, code: string, ...fragments: string[]): void {
  let caught: unknown;
  try {
    f();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(OccamError);
  const error = caught as OccamError;
  expect(error.code).toBe(code);
  for (const fragment of fragments) expect(error.message).toContain(fragment);
}

const GOOD = "a,b,y\n1,2,3\n2,1,5\n3,5,4\n4,3,8\n";

describe("parseCsv", () => {
  it("reads the header, the row count and the raw cells, trimmed", () => {
    const t = parseCsv("a, b ,y\n1, 2,x\n 3,4 ,5\n");
    expect(t.columns).toEqual(["a", "b", "y"]);
    expect(t.rows).toBe(2);
    expect(t.data.get("a")).toEqual(["1", "3"]);
    expect(t.data.get("b")).toEqual(["2", "4"]);
    expect(t.data.get("y")).toEqual(["x", "5"]);
  });

  it("handles quotes, a BOM, CRLF line ends, trailing blank lines and another delimiter", () => {
    const t = parseCsv('\uFEFF"name, with comma";y\r\n"1";2\r\n3;4\r\n\r\n\r\n', { delimiter: ";" });
    expect(t.columns).toEqual(["name, with comma", "y"]);
    expect(t.rows).toBe(2);
    expect(t.data.get("y")).toEqual(["2", "4"]);
  });

  it("rejects a ragged row, naming the spreadsheet row (header = row 1)", () => {
    expectOccamError(
      () => parseCsv("a,b,y\n1,2,3\n4,5\n6,7,8\n"),
      "invalid-data",
      "Row 3 has 2 fields but the header has 3",
      'make every row have exactly 3 fields separated by ","',
    );
    expectOccamError(
      () => parseCsv("a,b\n1,2\n3,4,5\n"),
      "invalid-data",
      "Row 3 has 3 fields but the header has 2",
    );
  });

  it("reports an empty line in the middle as a ragged row", () => {
    expectOccamError(
      () => parseCsv("a,b\n1,2\n\n3,4\n"),
      "invalid-data",
      "Row 3 has 1 field but the header has 2 (the line is empty)",
    );
  });

  it("rejects duplicate column names, naming both columns", () => {
    expectOccamError(
      () => parseCsv("x1,x2,x1,y\n1,2,3,4\n"),
      "invalid-data",
      'Duplicate column name "x1" (columns 1 and 3 of the header)',
      "rename one of them",
    );
  });

  it("rejects an empty column name", () => {
    expectOccamError(
      () => parseCsv("a,,y\n1,2,3\n"),
      "invalid-data",
      "Column 2 of the header (row 1) has no name",
    );
  });

  it("rejects empty text and a header without data rows", () => {
    expectOccamError(() => parseCsv(""), "invalid-data", "The CSV text is empty", "needs a header row");
    expectOccamError(() => parseCsv("\n\n"), "invalid-data", "The CSV text is empty");
    expectOccamError(() => parseCsv("a,b\n"), "invalid-data", "has a header row but no data rows");
  });

  it("wraps malformed quoting in an OccamError", () => {
    expectOccamError(
      () => parseCsv('a,b\n"1,2\n'),
      "invalid-data",
      "could not be parsed",
      "Check the quoting",
    );
  });

  it("rejects a bad delimiter option", () => {
    expectOccamError(
      () => parseCsv(GOOD, { delimiter: ";;" }),
      "invalid-argument",
      "delimiter must be a single character",
    );
  });
});

describe("readCsvColumns streams a file into the same columns, and the same errors, as parseCsv", () => {
  const dir = mkdtempSync(join(tmpdir(), "occam-csv-stream-"));
  let files = 0;
  const write = (text: string) => {
    const path = join(dir, `${files++}.csv`);
    writeFileSync(path, text);
    return path;
  };
  /** What a table gives for each column: its typed value, or its error message. */
  const typedOrError = (t: { columns: readonly string[]; typed: (c: string, r: string) => unknown }) =>
    t.columns.map((c) => {
      try {
        return t.typed(c, "input");
      } catch (error) {
        return (error as Error).message;
      }
    });
  const texts: [string, string][] = [
    ["numbers, text and trimming", "a, b ,y\n1, 2,x\n 3,4 ,5\n-1.5e3,7,x\n"],
    ["quotes, a BOM, CRLF and trailing blank lines", '\uFEFF"a, b",y\r\n"1",2\r\n3,4\r\n\r\n\r\n'],
    ["a factor with levels out of order", "f,y\nb,1\na,2\nc,3\na,4\n"],
    ["missing cells and mixed columns", "a,b,c\n1,x,2\nNA,3,\n4,5,6\n"],
    ["a number too large for a double", "a,b\n1,2\n1e999,3\n"],
    ["a ragged row", "a,b,y\n1,2,3\n4,5\n6,7,8\n"],
    ["an empty line in the middle", "a,b\n1,2\n\n3,4\n"],
    ["duplicate names", "x1,x2,x1,y\n1,2,3,4\n"],
    ["an empty name", "a,,y\n1,2,3\n"],
    ["empty text", ""],
    ["only blank lines", "\n\n"],
    ["no data rows", "a,b\n\n"],
    ["malformed quoting", 'a,b\n"1,2\n'],
  ];
  for (const [what, text] of texts) {
    it(what, async () => {
      let expected: unknown;
      try {
        expected = typedOrError(csvColumns(parseCsv(text)));
      } catch (error) {
        expected = error;
      }
      let streamed: unknown;
      try {
        streamed = typedOrError(await readCsvColumns(write(text)));
      } catch (error) {
        streamed = error;
      }
      if (expected instanceof OccamError) {
        expect(streamed).toBeInstanceOf(OccamError);
        expect((streamed as OccamError).code).toBe(expected.code);
        // csv-parse names the line in its own words for a stream; occam's part of the message is the same.
        expect((streamed as OccamError).message.split(":")[0]).toBe(expected.message.split(":")[0]);
      } else {
        expect(streamed).toEqual(expected);
      }
    });
  }

  it("reads many chunks of a file, with rows split across them", async () => {
    const rows = Array.from(
      { length: 20000 },
      (_, i) => `${i},${(i * 0.37).toFixed(3)},${i % 7 === 0 ? "a" : "b"}`,
    );
    const text = `i,x,f\n${rows.join("\n")}\n`;
    const table = await readCsvColumns(write(text));
    expect(table.rows).toBe(20000);
    expect(typedOrError(table)).toEqual(typedOrError(csvColumns(parseCsv(text))));
  });

  it("reports a missing file", async () => {
    await expect(readCsvColumns(join(dir, "missing.csv"))).rejects.toThrow(/Cannot read the CSV file/);
  });
});

describe("readCsv", () => {
  it("reads a file and reports a missing one", () => {
    const dir = mkdtempSync(join(tmpdir(), "occam-csv-"));
    try {
      const path = join(dir, "data.csv");
      writeFileSync(path, GOOD);
      const t = readCsv(path);
      expect(t.columns).toEqual(["a", "b", "y"]);
      expect(t.rows).toBe(4);
      expectOccamError(
        () => readCsv(join(dir, "missing.csv")),
        "invalid-argument",
        "Cannot read the CSV file",
        "missing.csv",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("numericTable", () => {
  it("builds X row-major and y without changing a value", () => {
    const t = numericTable(parseCsv("a,b,y\n1,2e1,3\n-2.5,.5,5\n3,5,4\n4,3,+8\n"), { target: "y" });
    expect(t.n).toBe(4);
    expect(t.p).toBe(2);
    expect(t.inputNames).toEqual(["a", "b"]);
    expect(t.targetName).toBe("y");
    expect(Array.from(t.X)).toEqual([1, 20, -2.5, 0.5, 3, 5, 4, 3]);
    expect(Array.from(t.y)).toEqual([3, 5, 4, 8]);
  });

  it("uses the inputs given, in their order, ignoring other (even non-numeric) columns", () => {
    const t = numericTable(parseCsv("id,a,b,y\nr1,1,2,3\nr2,2,1,5\nr3,3,5,4\nr4,4,3,8\n"), {
      target: "y",
      inputs: ["b", "a"],
    });
    expect(t.inputNames).toEqual(["b", "a"]);
    expect(Array.from(t.X.subarray(0, 4))).toEqual([2, 1, 1, 2]);
  });

  it("rejects an unknown target, listing the columns", () => {
    expectOccamError(
      () => numericTable(parseCsv(GOOD), { target: "z" }),
      "invalid-data",
      'Unknown target column "z": the columns are "a", "b", "y".',
    );
  });

  it("rejects an unknown input, listing the columns", () => {
    expectOccamError(
      () => numericTable(parseCsv(GOOD), { target: "y", inputs: ["a", "c"] }),
      "invalid-data",
      'Unknown input column "c": the columns are "a", "b", "y".',
    );
  });

  it("rejects the target among the inputs and a repeated input", () => {
    expectOccamError(
      () => numericTable(parseCsv(GOOD), { target: "y", inputs: ["a", "y"] }),
      "invalid-data",
      'Column "y" is both the target and an input',
    );
    expectOccamError(
      () => numericTable(parseCsv(GOOD), { target: "y", inputs: ["a", "a"] }),
      "invalid-data",
      'Input column "a" is listed twice',
    );
  });

  it("rejects missing values (empty, NA, NaN), naming row and column", () => {
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,3\n2,,5\n3,5,4\n4,3,8\n"), { target: "y" }),
      "invalid-data",
      'Row 3, column "b" (input): missing value (an empty cell).',
      "does not impute",
    );
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,3\n2,1,5\n3,5,4\nNA,3,8\n"), { target: "y" }),
      "invalid-data",
      'Row 5, column "a" (input): missing value ("NA")',
    );
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,NaN\n2,1,5\n3,5,4\n4,3,8\n"), { target: "y" }),
      "invalid-data",
      'Row 2, column "y" (target): missing value ("NaN")',
    );
  });

  it("rejects non-numeric and infinite cells, naming row and column", () => {
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,3\n2,1,5\n3,five,4\n4,3,8\n"), { target: "y" }),
      "invalid-data",
      'Row 4, column "b" (input): "five" is not a finite number.',
      "leave the column out of inputs",
    );
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,3\n2,1,5\n3,5,4\n4,3,Infinity\n"), { target: "y" }),
      "invalid-data",
      'Row 5, column "y" (target): "Infinity" is not a finite number.',
    );
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,0x10,3\n2,1,5\n3,5,4\n4,3,8\n"), { target: "y" }),
      "invalid-data",
      'Row 2, column "b" (input): "0x10" is not a finite number.',
    );
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,3\n2,1,5\n3,5,4\n1e999,3,8\n"), { target: "y" }),
      "invalid-data",
      'Row 5, column "a" (input): "1e999" is not a finite number.',
    );
  });

  it("rejects a non-numeric column in the default inputs", () => {
    expectOccamError(
      () => numericTable(parseCsv("id,a,y\nr1,1,3\nr2,2,5\nr3,3,4\nr4,4,8\n"), { target: "y" }),
      "invalid-data",
      'Row 2, column "id" (input): "r1" is not a finite number.',
    );
  });

  it("rejects constant input and target columns", () => {
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,3\n2,2,5\n3,2,4\n4,2,8\n"), { target: "y" }),
      "invalid-data",
      'The input column "b" is constant (every row is 2)',
      "Leave it out of inputs",
    );
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,3\n2,1,3\n3,5,3\n4,3,3\n"), { target: "y" }),
      "invalid-data",
      'The target column "y" is constant (every row is 3)',
    );
  });

  it("rejects fewer rows than inputs + 2", () => {
    expectOccamError(
      () => numericTable(parseCsv("a,b,y\n1,2,3\n2,1,5\n3,5,4\n"), { target: "y" }),
      "invalid-data",
      "The table has 3 data rows for 2 inputs",
      "at least inputs + 2 = 4 rows",
    );
    // Exactly inputs + 2 rows is enough.
    expect(numericTable(parseCsv(GOOD), { target: "y" }).n).toBe(4);
  });
});

describe("standardize", () => {
  it("centres and scales each column (sample sd, n − 1) and returns means and sds", () => {
    const X = new Float64Array([1, 10, 2, 20, 3, 60]);
    const s = standardize(X, 3, 2);
    expect(Array.from(s.means)).toEqual([2, 30]);
    expect(s.sds[0]).toBeCloseTo(1, 14);
    expect(s.sds[1]).toBeCloseTo(Math.sqrt((400 + 100 + 900) / 2), 12);
    expect(s.X[0]).toBeCloseTo(-1, 14);
    expect(s.X[4]).toBeCloseTo(1, 14);
    expect(Array.from(X)).toEqual([1, 10, 2, 20, 3, 60]); // the input is untouched
  });

  it("round-trips: X = mean + sd · Z, with Z of mean 0 and sd 1 (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (n, p, seed) => {
          // Deterministic distinct values per column: no constant column.
          const X = new Float64Array(n * p);
          let state = seed;
          for (let i = 0; i < n * p; i++) {
            state = (Math.imul(state, 1103515245) + 12345) >>> 0;
            X[i] = (state / 2 ** 32) * 100 - 50 + (i % p) * 1e3 + Math.floor(i / p);
          }
          const s = standardize(X, n, p);
          for (let j = 0; j < p; j++) {
            let m = 0;
            let ss = 0;
            for (let i = 0; i < n; i++) m += s.X[i * p + j];
            for (let i = 0; i < n; i++) ss += s.X[i * p + j] ** 2;
            expect(Math.abs(m / n)).toBeLessThan(1e-12);
            expect(Math.abs(ss / (n - 1) - 1)).toBeLessThan(1e-12);
            for (let i = 0; i < n; i++) {
              const back = s.means[j] + s.sds[j] * s.X[i * p + j];
              expect(Math.abs(back - X[i * p + j])).toBeLessThan(1e-10 * (1 + Math.abs(X[i * p + j])));
            }
          }
        },
      ),
      { numRuns: 50, seed: 7 },
    );
  });

  it("rejects a constant column and a wrong length", () => {
    expectOccamError(
      () => standardize(new Float64Array([1, 5, 2, 5, 3, 5]), 3, 2),
      "invalid-data",
      "column 1 has standard deviation 0",
    );
    expectOccamError(() => standardize(new Float64Array(5), 3, 2), "dimension-mismatch", "expected n·p = 6");
  });
});
