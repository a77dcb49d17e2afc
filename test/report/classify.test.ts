import { describe, expect, it } from "vitest";
import type { ClassificationData } from "../../src/models/mixture-classifier/data.js";
import { classifyReportDocument, classifyReportHtml } from "../../src/report/classify.js";
import { withError } from "../../src/report/format.js";
import { compareClassifierFamilies } from "../../src/selection/classifier-families.js";
import { simulatedInputs } from "../models/classifiers/support.js";

const HOSTILE = "<script>alert(1)</script>";

/** Three classes along x0, one of them named HOSTILE, the input named <b>x</b>. */
function data(n: number, seed: number): ClassificationData {
  const base = simulatedInputs(n, 2, 3, seed);
  const labels = Int32Array.from({ length: n }, (_, r) => {
    const s = base.X[2 * r] + 0.4 * Math.sin(7.3 * r + seed);
    return s < -0.4 ? 0 : s < 0.4 ? 1 : 2;
  });
  return { ...base, labels, inputNames: ["<b>x</b>", "z"], classNames: [HOSTILE, "b", "c"] };
}

const cmp = compareClassifierFamilies(data(60, 1), {
  test: data(30, 2),
  families: ["logistic", "pknn"],
  draws: 400,
  includeUnreliable: true,
  seed: 2,
});
const context = { data: "train <i>.csv", target: "<u>y</u>", test: "test.csv" };

describe("classifyReportHtml", () => {
  it("shows the families' evidences and weights, the test scores of families and averages, and the confusion matrix", async () => {
    const doc = await classifyReportDocument(cmp, context);
    expect(doc.sections.map((s) => s.heading)).toEqual(
      expect.arrayContaining(["Families", "Test predictions"]),
    );
    const [families, test] = doc.sections;
    // Evidence ± 2 s.e., and the probabilities with their intervals beside the stacking weights.
    expect(families.plots).toHaveLength(2);
    const familyRows = families.tables?.[0].rows ?? [];
    expect(familyRows.map((r) => r[0])).toEqual(["logistic", "pknn"]);
    expect(familyRows[0][2]).toContain(
      withError(cmp.families[0].evidence.logZ, cmp.families[0].evidence.stdErr),
    );
    // Log loss, accuracy, and the reliability diagram of the averages.
    expect(test.plots).toHaveLength(3);
    const [scores, confusion] = test.tables ?? [];
    expect(scores.rows.map((r) => r[0])).toEqual([
      "logistic",
      "pknn",
      "evidence-weighted average",
      "stacked",
    ]);
    const average = cmp.average;
    expect(average).not.toBeNull();
    expect(scores.rows[2][2]).toBe(withError(average?.logLoss ?? 0, average?.logLossMcse ?? 0));
    expect(confusion.columns.slice(1)).toEqual([HOSTILE, "b", "c"]);
    expect(confusion.rows.flatMap((r) => r.slice(1).map(Number)).reduce((a, b) => a + b, 0)).toBe(30);
    // The reliability diagram draws every bin of both averages.
    const spec = JSON.stringify(test.plots?.[2].spec);
    const bins = (average?.reliability.length ?? 0) + (cmp.stacked?.reliability.length ?? 0);
    expect(spec.match(/"observed":/g)).toHaveLength(bins);
  });

  it("escapes every string that came from the user: class labels, column and file names", async () => {
    const html = await classifyReportHtml(cmp, context);
    for (const raw of [HOSTILE, "<b>x</b>", "<i>", "<u>y</u>"]) expect(html).not.toContain(raw);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html.match(/<svg/g)).toHaveLength(5);
  });

  it("says how to get test scores when there are no test rows", async () => {
    const untested = {
      ...cmp,
      testRows: 0,
      average: null,
      stacked: null,
      families: cmp.families.map((f) => ({ ...f, test: null, testProbabilities: null })),
    };
    const doc = await classifyReportDocument(untested, { ...context, test: null });
    const test = doc.sections[1];
    expect(test.plots ?? []).toHaveLength(0);
    expect(test.paragraphs?.[0]).toMatch(/No test rows: give --test FILE or --split FRACTION/);
  });
});
