import { describe, expect, it } from "vitest";
import { renderPlot } from "../../src/report/plot.js";

describe("renderPlot", () => {
  it("renders a Vega-Lite specification to an SVG with its marks, and keeps the specification", async () => {
    const spec = {
      data: {
        values: [
          { a: 1, b: 2 },
          { a: 2, b: 5 },
          { a: 3, b: 4 },
        ],
      },
      mark: "point" as const,
      encoding: {
        x: { field: "a", type: "quantitative" as const },
        y: { field: "b", type: "quantitative" as const },
      },
    };
    const plot = await renderPlot(spec, "three points");
    expect(plot.svg.startsWith("<svg")).toBe(true);
    expect(plot.svg.match(/class="mark-symbol/g)?.length).toBe(1);
    expect(plot.svg.match(/<path /g)?.length ?? 0).toBeGreaterThanOrEqual(3);
    expect(plot.spec.data).toEqual(spec.data);
    expect(plot.caption).toBe("three points");
  });

  it("escapes the text it draws, so that a hostile label stays text", async () => {
    const plot = await renderPlot(
      {
        data: { values: [{ name: "<script>alert(1)</script>", v: 1 }] },
        mark: "bar",
        encoding: { y: { field: "name", type: "nominal" }, x: { field: "v", type: "quantitative" } },
      },
      "one bar",
    );
    expect(plot.svg).not.toContain("<script>");
    expect(plot.svg).toContain("&lt;script&gt;");
  });

  it("refuses to load data from anywhere", async () => {
    await expect(
      renderPlot({ data: { url: "https://example.org/data.csv" }, mark: "point", encoding: {} }, "remote"),
    ).rejects.toThrow(/could not be drawn.*load nothing/);
  });
});
