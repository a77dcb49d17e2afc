import { describe, expect, it } from "vitest";
import { escapeHtml, reportHtml } from "../../src/report/html.js";

describe("escapeHtml", () => {
  it("replaces the five characters that could open a tag or leave an attribute", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });
});

describe("reportHtml", () => {
  const page = reportHtml({
    title: "T <b>",
    subtitle: "from <i>",
    sections: [
      {
        heading: "H & h",
        paragraphs: ["p <script>"],
        tables: [
          {
            caption: "c",
            columns: ["<col-a>", "note"],
            rows: [["<cell-b>", "a long cell of prose that must be allowed to wrap over lines"]],
          },
        ],
      },
    ],
  });

  it("escapes every string a caller gives: title, headings, paragraphs, table cells", () => {
    for (const raw of ["T <b>", "from <i>", "H & h", "p <script>", "<col-a>", "<cell-b>"])
      expect(page).not.toContain(raw);
    expect(page).toContain("T &lt;b&gt;");
    expect(page).toContain("p &lt;script&gt;");
  });

  it("forbids scripts and loads by its content-security policy and has none of its own", () => {
    expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(page).not.toMatch(/<script|src=|href=/i);
  });

  it("lets a column of prose wrap, left-aligned, and keeps short cells on one line", () => {
    expect(page).toContain(`<td class="prose">a long cell`);
    expect(page).toContain(`<th class="prose">note</th>`);
    expect(page).toContain("<td>&lt;cell-b&gt;</td>");
  });
});
