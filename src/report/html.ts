/**
 * The report document: one self-contained HTML file (styles inline, every plot an inline SVG, no
 * script, no request to anywhere), built from sections of text, tables and plots. Every string that
 * reaches the page is escaped here, so a column named `<script>` shows as text.
 */
import type { RenderedPlot } from "./plot.js";

/** A table: its header and rows of cells, each a string (numbers already formatted). */
export interface ReportTable {
  readonly caption?: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** One part of a report: a heading, then paragraphs, tables and plots in that order. */
export interface ReportSection {
  readonly heading: string;
  readonly paragraphs?: readonly string[];
  readonly tables?: readonly ReportTable[];
  readonly plots?: readonly RenderedPlot[];
}

/** A whole report. */
export interface ReportDocument {
  readonly title: string;
  /** A line under the title: the command, the data, the seed. */
  readonly subtitle?: string;
  readonly sections: readonly ReportSection[];
}

/** `text` with &, <, >, " and ' replaced by entities: safe as element content and attribute value. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
.subtitle { color: #555; margin-top: 0; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 1em 0; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.3em; }
th, td { border-bottom: 1px solid #e5e5e5; padding: 0.25em 0.8em; text-align: right; white-space: nowrap; vertical-align: top; }
.wraps { white-space: normal; min-width: 8em; }
.prose { white-space: normal; text-align: left; min-width: 20em; }
th:first-child, td:first-child { text-align: left; }
figure { margin: 1.5em 0; }
figcaption { color: #444; font-size: 0.95em; }
details { margin-top: 0.3em; font-size: 0.85em; }
pre { background: #f6f6f6; padding: 0.6em; overflow: auto; max-height: 20em; }
`;

/**
 * A column with a cell longer than this holds prose: left-aligned and free to wrap. A column with a
 * cell longer than `SHORT_LENGTH` (an estimate with its error and method, a list of names) may wrap at
 * its spaces, so that a wide table fits the page; other columns (numbers, names) stay on one line.
 */
const PROSE_LENGTH = 40;
const SHORT_LENGTH = 16;

type ColumnKind = "short" | "wraps" | "prose";

function cellHtml(tag: "td" | "th", text: string, kind: ColumnKind): string {
  return `<${tag}${kind === "short" ? "" : ` class="${kind}"`}>${escapeHtml(text)}</${tag}>`;
}

function table(t: ReportTable): string {
  const kinds = t.columns.map((_, j): ColumnKind => {
    const longest = Math.max(...t.rows.map((row) => row[j].length));
    return longest > PROSE_LENGTH ? "prose" : longest > SHORT_LENGTH ? "wraps" : "short";
  });
  const head = t.columns.map((c, j) => cellHtml("th", c, kinds[j])).join("");
  const body = t.rows
    .map((row) => `<tr>${row.map((cell, j) => cellHtml("td", cell, kinds[j])).join("")}</tr>`)
    .join("\n");
  const caption = t.caption === undefined ? "" : `<caption>${escapeHtml(t.caption)}</caption>`;
  return `<table>${caption}<thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function figure(plot: RenderedPlot): string {
  // The SVG comes from vega, which escapes every text it draws; the specification is shown as text.
  return [
    "<figure>",
    plot.svg,
    `<figcaption>${escapeHtml(plot.caption)}</figcaption>`,
    `<details><summary>Vega-Lite specification</summary><pre>${escapeHtml(JSON.stringify(plot.spec, null, 2))}</pre></details>`,
    "</figure>",
  ].join("\n");
}

/** The report as one HTML document that opens offline. */
export function reportHtml(doc: ReportDocument): string {
  const sections = doc.sections.map((s) =>
    [
      `<section><h2>${escapeHtml(s.heading)}</h2>`,
      ...(s.paragraphs ?? []).map((p) => `<p>${escapeHtml(p)}</p>`),
      ...(s.tables ?? []).map(table),
      ...(s.plots ?? []).map(figure),
      "</section>",
    ].join("\n"),
  );
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    // No script may run and nothing may be fetched: everything the page shows is inline.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(doc.title)}</title>`,
    `<style>${STYLE}</style>`,
    "</head><body>",
    `<h1>${escapeHtml(doc.title)}</h1>`,
    doc.subtitle === undefined ? "" : `<p class="subtitle">${escapeHtml(doc.subtitle)}</p>`,
    ...sections,
    "</body></html>",
    "",
  ].join("\n");
}
