import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkMlpData } from "../../../src/models/mlp/data.js";
import { createMlp, type Mlp, randomWeights } from "../../../src/models/mlp/network.js";
import { sumOfSquares } from "../../../src/models/mlp/sum-of-squares.js";
import { tanh } from "../../../src/models/mlp/tanh.js";
import { createRng } from "../../../src/random/rng.js";
import { thrown } from "../../support/assertions.js";

/** The network written out plainly, with Math.tanh, from the documented layout. */
function reference(net: Mlp, w: Float64Array, x: ArrayLike<number>): number[] {
  const { inputs: I, hidden: H, outputs: O } = net;
  const hid: number[] = [];
  for (let h = 0; h < H; h++) {
    let a = w[H * I + h];
    for (let i = 0; i < I; i++) a += w[h * I + i] * x[i];
    hid.push(Math.tanh(a));
  }
  const out: number[] = [];
  for (let o = 0; o < O; o++) {
    let f = w[H * I + H + O * H + o];
    for (let h = 0; h < H; h++) f += w[H * I + H + o * H + h] * hid[h];
    out.push(f);
  }
  return out;
}

/** S(w) and its gradient written out plainly (per case, Math.tanh), from the documented layout. */
function referenceGradient(net: Mlp, w: Float64Array, X: Float64Array, Y: Float64Array, n: number) {
  const { inputs: I, hidden: H, outputs: O } = net;
  const [oc, ov, ob] = [H * I, H * I + H, H * I + H + O * H];
  const grad = new Float64Array(net.size);
  let value = 0;
  for (let r = 0; r < n; r++) {
    const x = X.subarray(r * I, (r + 1) * I);
    const t: number[] = [];
    for (let h = 0; h < H; h++) {
      let a = w[oc + h];
      for (let i = 0; i < I; i++) a += w[h * I + i] * x[i];
      t.push(Math.tanh(a));
    }
    const delta: number[] = [];
    for (let o = 0; o < O; o++) {
      let f = w[ob + o];
      for (let h = 0; h < H; h++) f += w[ov + o * H + h] * t[h];
      value += (f - Y[r * O + o]) ** 2;
      delta.push(2 * (f - Y[r * O + o]));
      grad[ob + o] += delta[o];
    }
    for (let h = 0; h < H; h++) {
      let g = 0;
      for (let o = 0; o < O; o++) {
        grad[ov + o * H + h] += delta[o] * t[h];
        g += delta[o] * w[ov + o * H + h];
      }
      g *= 1 - t[h] * t[h];
      grad[oc + h] += g;
      for (let i = 0; i < I; i++) grad[h * I + i] += g * x[i];
    }
  }
  return { value, grad };
}

function randomProblem(seed: number, I: number, H: number, O: number, n: number) {
  const rng = createRng(seed);
  const net = createMlp({ inputs: I, hidden: H, outputs: O });
  const X = Float64Array.from({ length: n * I }, () => 1.5 * rng.normal());
  const Y = Float64Array.from({ length: n * O }, () => rng.normal());
  const w = randomWeights(net, rng, 1.5);
  return { net, X, Y, w, n };
}

describe("createMlp", () => {
  it("lays the four groups out in order with the documented sizes and names", () => {
    const net = createMlp({ inputs: 3, hidden: 4, outputs: 2 });
    expect(net.size).toBe(3 * 4 + 4 + 2 * 4 + 2);
    expect(net.groups.map((g) => [g.name, g.offset, g.length])).toEqual([
      ["inputHidden", 0, 12],
      ["hiddenBias", 12, 4],
      ["hiddenOutput", 16, 8],
      ["outputBias", 24, 2],
    ]);
    expect(net.names[1]).toBe("u[h=0,i=1]");
    expect(net.names[12]).toBe("c[0]");
    expect(net.names[16 + 4]).toBe("v[o=1,h=0]");
    expect(net.names[25]).toBe("b[1]");
    expect(net.groupIndex("hiddenOutput")).toBe(2);
  });

  it("rejects a network without hidden units or with a fractional size", () => {
    expect(thrown(() => createMlp({ inputs: 2, hidden: 0, outputs: 1 })).message).toMatch(/hidden.*≥ 1/);
    expect(thrown(() => createMlp({ inputs: 1.5, hidden: 2, outputs: 1 })).code).toBe("invalid-argument");
  });

  it("predicts what the plainly written network computes (any shape)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 1000 }),
        (I, H, O, n, seed) => {
          const { net, X, w } = randomProblem(seed, I, H, O, n);
          const out = new Float64Array(n * O);
          net.predict(w, X, n, out);
          for (let r = 0; r < n; r++) {
            const ref = reference(net, w, X.subarray(r * I, (r + 1) * I));
            for (let o = 0; o < O; o++) expect(Math.abs(out[r * O + o] - ref[o])).toBeLessThan(1e-13);
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("tanh", () => {
  it("is within 4e-16 of Math.tanh on a fine grid and at the extremes", () => {
    let worst = 0;
    for (let k = -300000; k <= 300000; k++) {
      const x = k * 1e-4 + 1e-9 * (k % 7);
      worst = Math.max(worst, Math.abs(tanh(x) - Math.tanh(x)));
    }
    expect(worst).toBeLessThan(4e-16);
    for (const x of [1e-300, -1e-12, 19.09, 19.2, 40, 1e300, Number.POSITIVE_INFINITY]) {
      expect(Math.abs(tanh(x) - Math.tanh(x))).toBeLessThan(4e-16);
      expect(tanh(-x)).toBe(-tanh(x));
    }
    expect(tanh(Number.NaN)).toBeNaN();
  });
});

describe("sumOfSquares", () => {
  it("computes the sum of squared errors of the plain network", () => {
    const { net, X, Y, w, n } = randomProblem(3, 2, 5, 2, 20);
    const s = sumOfSquares(net, X, Y, n);
    let ref = 0;
    const per = [0, 0];
    for (let r = 0; r < n; r++) {
      const f = reference(net, w, X.subarray(r * 2, r * 2 + 2));
      for (let o = 0; o < 2; o++) {
        ref += (f[o] - Y[r * 2 + o]) ** 2;
        per[o] += (f[o] - Y[r * 2 + o]) ** 2;
      }
    }
    expect(s.value(w)).toBeCloseTo(ref, 10);
    const out = new Float64Array(2);
    s.perOutput(w, out);
    expect(out[0]).toBeCloseTo(per[0], 10);
    expect(out[1]).toBeCloseTo(per[1], 10);
  });

  it("has the gradient of central finite differences (any shape)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 1000 }),
        (I, H, O, n, seed) => {
          const { net, X, Y, w } = randomProblem(seed, I, H, O, n);
          const s = sumOfSquares(net, X, Y, n);
          const grad = new Float64Array(net.size);
          const value = s.gradient(w, grad);
          expect(value).toBeCloseTo(s.value(w), 12);
          // Central differences with step h err by ~h²|S'''|/6 (truncation) plus ~1e-16·|S|/h
          // (rounding); h = 1e-5 keeps both below 1e-7 · (1 + |S|) for these O(1)-scaled problems.
          const h = 1e-5;
          const x = Float64Array.from(w);
          for (let j = 0; j < net.size; j++) {
            x[j] = w[j] + h;
            const up = s.value(x);
            x[j] = w[j] - h;
            const down = s.value(x);
            x[j] = w[j];
            const fd = (up - down) / (2 * h);
            expect(Math.abs(grad[j] - fd)).toBeLessThan(1e-6 * (1 + Math.abs(value)));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("agrees with plain backpropagation to 1e-12 in both loops (≤ 2 inputs and outputs, and general)", () => {
    // Shapes with I, O ≤ 2 take the unrolled loop (hidden units in pairs, so odd H exercises its
    // remainder); the others take the general one. Both must match the plainly written per-case
    // backpropagation up to rounding: the tanh's differ by < 4e-16 and the sums over n ≤ 30 cases of
    // O(10) terms lose < 1e-13, so 1e-12 relative to the scale 1 + S of the sums has a margin.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 1000 }),
        (I, H, O, n, seed) => {
          const { net, X, Y, w } = randomProblem(seed, I, H, O, n);
          const s = sumOfSquares(net, X, Y, n);
          const ref = referenceGradient(net, w, X, Y, n);
          const grad = new Float64Array(net.size).fill(Number.NaN);
          const tol = 1e-12 * (1 + ref.value);
          expect(Math.abs(s.gradient(w, grad) - ref.value)).toBeLessThan(tol);
          expect(Math.abs(s.value(w) - ref.value)).toBeLessThan(tol);
          for (let j = 0; j < net.size; j++) expect(Math.abs(grad[j] - ref.grad[j])).toBeLessThan(tol);
          const per = new Float64Array(O);
          s.perOutput(w, per);
          expect(Math.abs(per.reduce((a, b) => a + b, 0) - ref.value)).toBeLessThan(tol);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("gives the same answer on repeated calls (its buffers are reused, not stale)", () => {
    const { net, X, Y, w, n } = randomProblem(5, 2, 16, 2, 200);
    const s = sumOfSquares(net, X, Y, n);
    const g1 = new Float64Array(net.size);
    const g2 = new Float64Array(net.size).fill(7);
    const v1 = s.gradient(w, g1);
    s.value(randomWeights(net, createRng(9)));
    const v2 = s.gradient(w, g2);
    expect(v2).toBe(v1);
    expect(Array.from(g2)).toEqual(Array.from(g1));
  });

  it("rejects mismatched shapes and non-finite data", () => {
    const net = createMlp({ inputs: 2, hidden: 3, outputs: 1 });
    expect(thrown(() => sumOfSquares(net, new Float64Array(5), new Float64Array(3), 3)).code).toBe(
      "dimension-mismatch",
    );
    expect(thrown(() => sumOfSquares(net, [0, 1, Number.NaN, 2], [1, 2], 2)).code).toBe("invalid-data");
    const s = sumOfSquares(net, [0, 1, 1, 2], [1, 2], 2);
    expect(thrown(() => s.value(new Float64Array(3))).code).toBe("dimension-mismatch");
  });
});

describe("checkMlpData", () => {
  it("names the case and input of a non-finite value", () => {
    const X = Float64Array.from([0, 1, 2, Number.POSITIVE_INFINITY]);
    const e = thrown(() => checkMlpData({ X, Y: new Float64Array(2), n: 2, inputs: 2, outputs: 1 }, "here"));
    expect(e.code).toBe("invalid-data");
    expect(e.message).toMatch(/here: input 1 of case 1/);
  });
});
