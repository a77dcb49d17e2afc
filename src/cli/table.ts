export { formatNumber } from "../report/format.js";

/** A column of a printed table: its header and whether numbers align right. */
export interface Column {
  header: string;
  align?: "left" | "right";
}

/**
 * Formats rows as a plain-text table with a header rule, columns padded to their widest cell.
 * Cells are strings already: formatting numbers is the caller's choice.
 */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, j) => Math.max(c.header.length, ...rows.map((r) => r[j].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, j) => (columns[j].align === "left" ? cell.padEnd(widths[j]) : cell.padStart(widths[j])))
      .join("  ")
      .trimEnd();
  const header = line(columns.map((c) => c.header));
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [header, rule, ...rows.map(line)].join("\n");
}
