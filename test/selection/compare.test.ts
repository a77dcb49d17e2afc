import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import {
  compareModels,
  compareSubsets,
  logModelPrior,
  type ModelPrior,
  parseModelPrior,
  type SubsetCollection,
  subsetMembers,
} from "../../src/selection/compare.js";

function popcount(m: number): number {
  let c = 0;
  for (; m; m &= m - 1) c++;
  return c;
}

/** A full table of 2^p random log evidences (spread of tens of nats around −1e4). */
function randomTable(p: number, seed: number, spread = 5): SubsetCollection {
  const rng = createRng(seed);
  const count = 2 ** p;
  const masks = Uint32Array.from({ length: count }, (_, i) => i);
  const sizes = Uint8Array.from(masks, popcount);
  const logEvidence = Float64Array.from({ length: count }, () => -1e4 + spread * rng.normal());
  return { p, masks, sizes, logEvidence };
}

/** The same table in CSR form. */
function toCsr(table: SubsetCollection): SubsetCollection {
  const members: number[] = [];
  const offsets = [0];
  for (let i = 0; i < table.logEvidence.length; i++) {
    members.push(...subsetMembers(table, i));
    offsets.push(members.length);
  }
  return {
    p: table.p,
    sizes: table.sizes,
    logEvidence: table.logEvidence,
    members: Int32Array.from(members),
    offsets: Int32Array.from(offsets),
  };
}

describe("logModelPrior", () => {
  it("is normalised over all 2^p subsets for every prior", () => {
    const priors: ModelPrior[] = [
      "uniform",
      "uniform-size",
      { name: "beta-binomial", a: 2, b: 5 },
      { name: "beta-binomial", a: 0.5, b: 0.5 },
    ];
    for (const p of [0, 1, 5, 20]) {
      for (const prior of priors) {
        let total = 0;
        for (let k = 0; k <= p; k++) {
          let c = 1;
          for (let i = 1; i <= k; i++) c = (c * (p - k + i)) / i;
          total += c * Math.exp(logModelPrior(prior, p, k));
        }
        expect(total).toBeCloseTo(1, 12);
      }
    }
    expect(logModelPrior("uniform-size", 4, 2)).toBeCloseTo(-Math.log(5 * 6), 14);
    expect(() => logModelPrior("flat" as never, 3, 1)).toThrow(OccamError);
    expect(() => logModelPrior({ name: "beta-binomial", a: 0, b: 1 }, 3, 1)).toThrow(OccamError);
  });

  it("makes beta-binomial(1, 1) uniform over sizes, as BAS's default is", () => {
    for (let k = 0; k <= 7; k++) {
      expect(logModelPrior({ name: "beta-binomial", a: 1, b: 1 }, 7, k)).toBeCloseTo(
        logModelPrior("uniform-size", 7, k),
        12,
      );
    }
  });

  it("parses the command line's forms and refuses others", () => {
    expect(parseModelPrior("uniform")).toBe("uniform");
    expect(parseModelPrior("beta-binomial")).toEqual({ name: "beta-binomial", a: 1, b: 1 });
    expect(parseModelPrior("beta-binomial:2,0.5")).toEqual({ name: "beta-binomial", a: 2, b: 0.5 });
    for (const bad of ["beta-binomial:0,1", "beta-binomial:2", "flat", "beta-binomial:a,b"]) {
      expect(() => parseModelPrior(bad)).toThrow(/--model-prior takes/);
    }
  });
});

describe("compareModels", () => {
  it("gives probabilities summing to 1 for evidences of any magnitude", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 30 }),
        (lz) => {
          const { probability, logPosterior, order } = compareModels({ logEvidence: lz });
          const sum = probability.reduce((s, v) => s + v, 0);
          expect(sum).toBeCloseTo(1, 12);
          for (let i = 1; i < order.length; i++) {
            expect(logPosterior[order[i - 1]]).toBeGreaterThanOrEqual(logPosterior[order[i]]);
          }
        },
      ),
    );
  });

  it("computes Bayes factors against a named reference and delta-method standard errors", () => {
    const logEvidence = [-100, -101.5, -99.2];
    const stdErr = [0.1, 0.3, 0.2];
    const names = ["a", "b", "c"];
    const cmp = compareModels({ logEvidence, stdErr, names, reference: "b" });
    expect(cmp.best).toBe(2);
    expect(cmp.reference).toBe(1);
    expect(cmp.logBayesFactor[0]).toBe(1.5);
    expect(cmp.logBayesFactor[1]).toBe(0);
    expect(cmp.logBayesFactor[2]).toBeCloseTo(2.3, 12);
    expect(cmp.logBayesFactorStdErr![0]).toBeCloseTo(Math.hypot(0.1, 0.3), 14);
    // The delta method against finite differences of p_i in each log evidence.
    const h = 1e-6;
    for (let i = 0; i < 3; i++) {
      let v = 0;
      for (let j = 0; j < 3; j++) {
        const up = [...logEvidence];
        up[j] += h;
        const dp = (compareModels({ logEvidence: up }).probability[i] - cmp.probability[i]) / h;
        v += (dp * stdErr[j]) ** 2;
      }
      expect(cmp.probabilityStdErr![i]).toBeCloseTo(Math.sqrt(v), 6);
    }
    // A prior moves the posterior, not the Bayes factors (here against the new best, model b).
    const withPrior = compareModels({ logEvidence, logPrior: [0, Math.log(100), 0] });
    expect(withPrior.best).toBe(1);
    expect(withPrior.logBayesFactor[0]).toBe(1.5);
    expect(withPrior.probability[1] / withPrior.probability[2]).toBeCloseTo(100 * Math.exp(-2.3), 12);
  });

  it("rejects NaN evidence and unknown references", () => {
    expect(() => compareModels({ logEvidence: [1, Number.NaN] })).toThrow(/finite/);
    expect(() => compareModels({ logEvidence: [1, 2], names: ["a", "b"], reference: "z" })).toThrow(
      /reference/,
    );
    expect(() => compareModels({ logEvidence: [1, 2], stdErr: [1] })).toThrow(OccamError);
  });
});

describe("compareSubsets", () => {
  it("gives inclusion and size probabilities equal to brute-force sums, for masks and CSR alike", () => {
    for (const prior of ["uniform", "uniform-size"] as const) {
      const table = randomTable(6, 17);
      const cmp = compareSubsets(table, { prior, top: 5 });
      // Brute force: exponentiate relative to the max and sum.
      const logs = Array.from(
        table.logEvidence,
        (l, i) => l + logModelPrior(prior, 6, table.sizes[i] as number),
      );
      const max = Math.max(...logs);
      const w = logs.map((l) => Math.exp(l - max));
      const z = w.reduce((s, v) => s + v, 0);
      expect(cmp.probability.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 13);
      for (let j = 0; j < 6; j++) {
        let inc = 0;
        for (let m = 0; m < 64; m++) if (m & (1 << j)) inc += w[m] / z;
        expect(cmp.inclusion[j]).toBeCloseTo(inc, 13);
      }
      for (let k = 0; k <= 6; k++) {
        let s = 0;
        for (let m = 0; m < 64; m++) if (popcount(m) === k) s += w[m] / z;
        expect(cmp.sizeProbability[k]).toBeCloseTo(s, 13);
      }
      const sorted = Array.from({ length: 64 }, (_, i) => i).sort((a, b) => logs[b] - logs[a]);
      expect(Array.from(cmp.top)).toEqual(sorted.slice(0, 5));
      expect(cmp.best).toBe(sorted[0]);
      const csr = compareSubsets(toCsr(table), { prior, top: 5 });
      for (let j = 0; j < 6; j++) expect(csr.inclusion[j]).toBeCloseTo(cmp.inclusion[j], 14);
      expect(Array.from(csr.medianModel)).toEqual(Array.from(cmp.medianModel));
      expect(csr.medianModelIndex).toBe(cmp.medianModelIndex);
    }
  });

  it("finds the median-probability model, which need not be the most probable one", () => {
    // Three inputs; S = {0} has 0.4, {1, 2} 0.35, {0, 1} 0.25: inclusion (0.65, 0.6, 0.35), so the
    // median model is {0, 1} although {0} is the most probable.
    const logEvidence = new Float64Array(8).fill(Number.NEGATIVE_INFINITY);
    logEvidence[0b001] = Math.log(0.4);
    logEvidence[0b110] = Math.log(0.35);
    logEvidence[0b011] = Math.log(0.25);
    const table = {
      p: 3,
      masks: Uint32Array.from({ length: 8 }, (_, i) => i),
      sizes: Uint8Array.from([0, 1, 1, 2, 1, 2, 2, 3]),
      logEvidence,
    };
    const cmp = compareSubsets(table);
    expect(cmp.inclusion[0]).toBeCloseTo(0.65, 14);
    expect(cmp.inclusion[1]).toBeCloseTo(0.6, 14);
    expect(cmp.inclusion[2]).toBeCloseTo(0.35, 14);
    expect(Array.from(cmp.medianModel)).toEqual([0, 1]);
    expect(cmp.medianModelIndex).toBe(0b011);
    expect(cmp.best).toBe(0b001);
    expect(cmp.logBayesFactor[0b011]).toBeCloseTo(Math.log(0.25 / 0.4), 14);
    expect(Array.from(cmp.top.slice(0, 3))).toEqual([0b001, 0b110, 0b011]);
  });

  // Its speed is measured in bench/compare.bench.ts, not here: a wall-clock bound fails on a loaded machine.
  it("handles 2^20 subsets and normalises in log space", () => {
    const table = randomTable(20, 3, 30);
    const cmp = compareSubsets(table, { prior: "uniform-size", top: 20 });
    expect(cmp.probability.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 10);
    expect(cmp.top.length).toBe(20);
    for (let i = 1; i < 20; i++)
      expect(cmp.logPosterior[cmp.top[i - 1]]).toBeGreaterThanOrEqual(cmp.logPosterior[cmp.top[i]]);
  });

  it("rejects malformed collections", () => {
    expect(() =>
      compareSubsets({
        p: 2,
        logEvidence: new Float64Array(4),
        sizes: new Uint8Array(3),
        masks: new Uint32Array(4),
      }),
    ).toThrow(/sizes/);
    expect(() =>
      compareSubsets({ p: 2, logEvidence: new Float64Array(4), sizes: new Uint8Array(4) }),
    ).toThrow(/masks/);
    expect(() => compareSubsets(randomTable(3, 1), { reference: 99 })).toThrow(/reference/);
  });
});
