import { describe, expect, it } from "vitest";
import { tCdf } from "../../src/math/stdlib.js";
import { tabulatedT } from "../../src/math/t-cdf-table.js";
import { createRng } from "../../src/random/rng.js";

describe("tabulatedT", () => {
  it("gives Student's t CDF within 1e-9 of @stdlib's, and its density, for ν from 1 to 10⁴", () => {
    const rng = createRng(9);
    for (const dof of [1, 2.5, 5, 30, 177, 1e4]) {
      const table = tabulatedT(dof);
      let worst = 0;
      for (let i = 0; i < 4000; i++) {
        // Mostly inside the table, some beyond it (|t| > 32).
        const t = (i % 10 === 0 ? 80 : 12) * (2 * rng.uniform() - 1);
        worst = Math.max(worst, Math.abs(table.cdf(t) - tCdf(t, dof)));
        const h = 1e-5;
        const slope = (tCdf(t + h, dof) - tCdf(t - h, dof)) / (2 * h);
        expect(Math.abs(table.pdf(t) - slope), `ν = ${dof}, t = ${t}`).toBeLessThan(1e-6);
      }
      expect(worst, `ν = ${dof}`).toBeLessThan(1e-9);
    }
  });
});
