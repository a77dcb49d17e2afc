/**
 * CSV files read from disk (Node.js only): {@link readCsv} into memory, {@link readCsvColumns} row by
 * row into typed columns. The rest of the library takes text or arrays (`parseCsv`), so that it runs in
 * a browser too.
 */
import { createReadStream, readFileSync, statSync } from "node:fs";
import { parse as parseStream } from "csv-parse";
import { OccamError } from "../errors.js";
import { ColumnBuilder } from "./columns.js";
import {
  type CsvColumns,
  type CsvOptions,
  type CsvTable,
  checkHeader,
  emptyText,
  fillCsvOptions,
  isBlankRecord,
  noDataRows,
  parseCsv,
  parserOptions,
  raggedRow,
  unparsable,
} from "./csv.js";

/**
 * Reads and parses a CSV file with a header row (see {@link parseCsv} for the checks). Throws an
 * `invalid-argument` OccamError when the file cannot be read.
 */
export function readCsv(path: string, options: CsvOptions = {}): CsvTable {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw unreadable(path, error);
  }
  return parseCsv(text, options);
}

function unreadable(path: string, error: unknown): OccamError {
  const detail = error instanceof Error ? error.message : String(error);
  return new OccamError(
    "invalid-argument",
    `Cannot read the CSV file "${path}": ${detail}. Check the path and the file's permissions.`,
  );
}

/**
 * Reads a CSV file row by row straight into typed columns (Float64Array numbers or factor codes), never
 * holding the file's text or its cells as strings: a file of two million rows costs about its numbers'
 * 8 bytes each. The checks are {@link parseCsv}'s; each column's are made when it is asked for. Throws an
 * `invalid-argument` OccamError when the file cannot be read.
 */
export async function readCsvColumns(path: string, options: CsvOptions = {}): Promise<CsvColumns> {
  const { delimiter } = fillCsvOptions(options);
  try {
    statSync(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  const input = createReadStream(path);
  const parser = parseStream(parserOptions(delimiter));
  input.on("error", (error) => parser.destroy(error));
  input.pipe(parser);
  let header: string[] | null = null;
  let builders: ColumnBuilder[] = [];
  let rows = 0;
  let blankLines = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (isBlankRecord(record)) {
        blankLines++; // formatting at the end of the file, or a ragged row (or empty header) if more follows
      } else if (header === null) {
        if (blankLines > 0) checkHeader([""]); // the header is the first line, and it was empty
        header = checkHeader(record);
        builders = header.map((name) => new ColumnBuilder(name));
      } else {
        if (blankLines > 0) throw raggedRow([""], rows + 2, header.length, delimiter);
        if (record.length !== header.length) throw raggedRow(record, rows + 2, header.length, delimiter);
        for (let j = 0; j < record.length; j++) builders[j].push(record[j]);
        rows++;
      }
    }
  } catch (error) {
    input.destroy();
    if (error instanceof OccamError) throw error;
    if (error instanceof Error && "code" in error && String(error.code).startsWith("CSV_")) {
      throw unparsable(error);
    }
    throw unreadable(path, error);
  }
  if (header === null) throw emptyText();
  if (rows === 0) throw noDataRows();
  const byName = new Map(builders.map((b) => [b.name, b]));
  return {
    columns: Object.freeze([...header]),
    rows,
    typed: (name, role) => (byName.get(name) as ColumnBuilder).typed(role),
  };
}
