/** The sum of squares and its gradient for networks with at most two inputs and two outputs, unrolled. */
import type { Mlp } from "./network.js";
import type { SumOfSquares } from "./sum-of-squares.js";
import { checkGradient, checkWeights } from "./sum-of-squares-general.js";
import { tanh } from "./tanh.js";

/**
 * The sum of squares for networks with at most two inputs and two outputs (the robot arm: 2 → H → 2),
 * the hot loop of the thesis's experiments. A missing second input or output is a column of zeros
 * with a zero weight, so one loop serves all four shapes.
 *
 * Hidden-major, two passes over the cases per pair of hidden units: the forward pass computes both
 * units' activations for a case, stores them (act[h·n + r]) and adds their contributions to the two
 * output residuals e0[r], e1[r]; the backward pass reads them back and accumulates the ten gradient
 * entries of the pair in locals. Everything indexed by input or output is a named local rather than
 * an inner loop (V8 does not unroll short loops, and their overhead was most of the time), the data
 * are case-minor columns read with unit stride, and two units per pass halve the residual and input
 * traffic and give the CPU two independent tanh chains to overlap. About 3× the general loop
 * (`sum-of-squares-general.ts`).
 *
 * It stays one long function on purpose: the forward pass and the gradient are closures over the same
 * scratch columns and named locals, and each hidden-unit pair's body is written out in full, which is
 * what makes it fast; cut into helpers it would pass a dozen buffers around in the hot loop.
 */
export function smallSumOfSquares(network: Mlp, x: Float64Array, y: Float64Array, n: number): SumOfSquares {
  const I = network.inputs;
  const H = network.hidden;
  const O = network.outputs;
  const size = network.size;
  const twoIn = I === 2;
  const twoOut = O === 2;
  const oc = H * I;
  const ov = oc + H;
  const ob = ov + O * H;
  // Columns: x0[r], x1[r] inputs of case r, y0[r], y1[r] its targets (zeros when absent).
  const x0 = new Float64Array(n);
  const x1 = new Float64Array(n);
  const y0 = new Float64Array(n);
  const y1 = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    x0[r] = x[r * I];
    if (twoIn) x1[r] = x[r * I + 1];
    y0[r] = y[r * O];
    if (twoOut) y1[r] = y[r * O + 1];
  }
  const act = new Float64Array(H * n); // tanh activations, act[h·n + r]
  const e0 = new Float64Array(n); // residuals f − y of output 0
  const e1 = new Float64Array(n); // and of output 1 (zeros when O = 1)

  /** Fills act, e0 and e1 and returns the sum of squares. */
  const forward = (w: Float64Array): number => {
    const b0 = w[ob];
    const b1 = twoOut ? w[ob + 1] : 0;
    for (let r = 0; r < n; r++) {
      e0[r] = b0 - y0[r];
      e1[r] = b1 - y1[r];
    }
    let h = 0;
    for (; h + 1 < H; h += 2) {
      const c = w[oc + h];
      const u0 = w[h * I];
      const u1 = twoIn ? w[h * I + 1] : 0;
      const v0 = w[ov + h];
      const v1 = twoOut ? w[ov + H + h] : 0;
      const cB = w[oc + h + 1];
      const uB0 = w[(h + 1) * I];
      const uB1 = twoIn ? w[(h + 1) * I + 1] : 0;
      const vB0 = w[ov + h + 1];
      const vB1 = twoOut ? w[ov + H + h + 1] : 0;
      const ah = h * n;
      const aB = ah + n;
      for (let r = 0; r < n; r++) {
        const xr0 = x0[r];
        const xr1 = x1[r];
        const t = tanh(c + u0 * xr0 + u1 * xr1);
        const tB = tanh(cB + uB0 * xr0 + uB1 * xr1);
        act[ah + r] = t;
        act[aB + r] = tB;
        e0[r] += v0 * t + vB0 * tB;
        e1[r] += v1 * t + vB1 * tB;
      }
    }
    if (h < H) {
      const c = w[oc + h];
      const u0 = w[h * I];
      const u1 = twoIn ? w[h * I + 1] : 0;
      const v0 = w[ov + h];
      const v1 = twoOut ? w[ov + H + h] : 0;
      const ah = h * n;
      for (let r = 0; r < n; r++) {
        const t = tanh(c + u0 * x0[r] + u1 * x1[r]);
        act[ah + r] = t;
        e0[r] += v0 * t;
        e1[r] += v1 * t;
      }
    }
    let s = 0;
    for (let r = 0; r < n; r++) s += e0[r] * e0[r] + e1[r] * e1[r];
    return s;
  };

  /** Writes the gradient of one hidden unit h (its u, c and v entries) from its sums over cases. */
  const store = (
    grad: Float64Array,
    h: number,
    gu0: number,
    gu1: number,
    gc: number,
    gv0: number,
    gv1: number,
  ) => {
    grad[h * I] = gu0;
    if (twoIn) grad[h * I + 1] = gu1;
    grad[oc + h] = gc;
    grad[ov + h] = gv0;
    if (twoOut) grad[ov + H + h] = gv1;
  };

  return Object.freeze({
    network,
    n,
    value(w: Float64Array): number {
      checkWeights(w, size);
      return forward(w);
    },
    perOutput(w: Float64Array, out: Float64Array): void {
      checkWeights(w, size);
      forward(w);
      let s0 = 0;
      let s1 = 0;
      for (let r = 0; r < n; r++) {
        s0 += e0[r] * e0[r];
        s1 += e1[r] * e1[r];
      }
      out[0] = s0;
      if (twoOut) out[1] = s1;
    },
    gradient(w: Float64Array, grad: Float64Array): number {
      checkWeights(w, size);
      checkGradient(grad, size);
      const s = forward(w);
      // With δ_o = 2 e_o: ∂S/∂b_o = Σ_r δ_o, ∂S/∂v_{o,h} = Σ_r δ_o t_h, and for the hidden unit
      // g_h = (1 − t_h²) Σ_o δ_o v_{o,h}: ∂S/∂c_h = Σ_r g_h, ∂S/∂u_{h,i} = Σ_r g_h x_i. The factor 2
      // is applied to the sums and weights, not per case.
      let sb0 = 0;
      let sb1 = 0;
      for (let r = 0; r < n; r++) {
        sb0 += e0[r];
        sb1 += e1[r];
      }
      grad[ob] = 2 * sb0;
      if (twoOut) grad[ob + 1] = 2 * sb1;
      let h = 0;
      for (; h + 1 < H; h += 2) {
        const v0 = 2 * w[ov + h];
        const v1 = twoOut ? 2 * w[ov + H + h] : 0;
        const vB0 = 2 * w[ov + h + 1];
        const vB1 = twoOut ? 2 * w[ov + H + h + 1] : 0;
        const ah = h * n;
        const aB = ah + n;
        let gc = 0;
        let gu0 = 0;
        let gu1 = 0;
        let gv0 = 0;
        let gv1 = 0;
        let gcB = 0;
        let guB0 = 0;
        let guB1 = 0;
        let gvB0 = 0;
        let gvB1 = 0;
        for (let r = 0; r < n; r++) {
          const t = act[ah + r];
          const tB = act[aB + r];
          const d0 = e0[r];
          const d1 = e1[r];
          const xr0 = x0[r];
          const xr1 = x1[r];
          gv0 += d0 * t;
          gv1 += d1 * t;
          gvB0 += d0 * tB;
          gvB1 += d1 * tB;
          const g = (v0 * d0 + v1 * d1) * (1 - t * t);
          const gB = (vB0 * d0 + vB1 * d1) * (1 - tB * tB);
          gc += g;
          gu0 += g * xr0;
          gu1 += g * xr1;
          gcB += gB;
          guB0 += gB * xr0;
          guB1 += gB * xr1;
        }
        store(grad, h, gu0, gu1, gc, 2 * gv0, 2 * gv1);
        store(grad, h + 1, guB0, guB1, gcB, 2 * gvB0, 2 * gvB1);
      }
      if (h < H) {
        const v0 = 2 * w[ov + h];
        const v1 = twoOut ? 2 * w[ov + H + h] : 0;
        const ah = h * n;
        let gc = 0;
        let gu0 = 0;
        let gu1 = 0;
        let gv0 = 0;
        let gv1 = 0;
        for (let r = 0; r < n; r++) {
          const t = act[ah + r];
          const d0 = e0[r];
          const d1 = e1[r];
          gv0 += d0 * t;
          gv1 += d1 * t;
          const g = (v0 * d0 + v1 * d1) * (1 - t * t);
          gc += g;
          gu0 += g * x0[r];
          gu1 += g * x1[r];
        }
        store(grad, h, gu0, gu1, gc, 2 * gv0, 2 * gv1);
      }
      return s;
    },
  });
}
