import { existsSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { InvalidArgumentError } from "commander";
import { OccamError } from "../errors.js";

/** The help text of every command's `--report` option. */
export const REPORT_OPTION_HELP = "also write a self-contained HTML report with plots to FILE.html";

/**
 * A commander parser for `--report FILE.html`: the name must end in .html and its folder must exist,
 * checked before the command does any work, so that a long run never ends in a report it cannot write.
 */
export function parseReportPath(text: string): string {
  if (!/\.html?$/i.test(text)) {
    throw new InvalidArgumentError(`the report is an HTML page: name it FILE.html, got "${text}".`);
  }
  const folder = dirname(resolve(text));
  if (!(existsSync(folder) && statSync(folder).isDirectory())) {
    throw new InvalidArgumentError(`the report's folder ${dirname(text)} does not exist; create it first.`);
  }
  if (existsSync(text) && statSync(text).isDirectory()) {
    throw new InvalidArgumentError(`${text} is a folder; give the report a file name.`);
  }
  return text;
}

/**
 * Writes the report atomically: to a temporary file beside it, then renamed, so that a reader never
 * sees half a page and a failed write leaves an older report intact.
 */
export function writeReport(path: string, html: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, html);
    renameSync(temporary, path);
  } catch (error) {
    if (existsSync(temporary)) unlinkSync(temporary);
    const message = error instanceof Error ? error.message : String(error);
    throw new OccamError("invalid-argument", `cannot write the report ${path}: ${message}`);
  }
}
