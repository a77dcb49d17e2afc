/**
 * A one-hidden-layer perceptron with tanh hidden units and linear outputs (Fabricius thesis §6.3.1,
 * eqs. 6.35–6.37; Barber & Bishop §3), its forward pass, and the gradient of the sum of squared
 * errors over a data set by backpropagation (thesis eqs. 6.41–6.42).
 *
 * All weights live in one Float64Array `w` of length {@link Mlp.size}, in four consecutive groups
 * (the groups of the hierarchical prior, Neal 1996):
 *
 * | group          | offset                 | length | entry                                                 |
 * | -------------- | ---------------------- | ------ | ----------------------------------------------------- |
 * | `inputHidden`  | 0                      | H·I    | w[h·I + i]: input i → hidden unit h                    |
 * | `hiddenBias`   | H·I                    | H      | w[H·I + h]: bias of hidden unit h                      |
 * | `hiddenOutput` | H·I + H                | O·H    | w[H·I + H + o·H + h]: hidden unit h → output o         |
 * | `outputBias`   | H·I + H + O·H          | O      | w[H·I + H + O·H + o]: bias of output o                 |
 *
 * with I inputs, H hidden units and O outputs, so that
 * f_o(x) = b_o + Σ_h v_{o,h} tanh(c_h + Σ_i u_{h,i} x_i).
 */
import { OccamError } from "../../errors.js";
import type { Rng } from "../../random/rng.js";

// --- tanh -------------------------------------------------------------------------------------
// V8's Math.tanh (a port of fdlibm) costs about as much as the rest of a gradient evaluation, so the
// hot loops use this one: tanh|x| = (1 − e)/(1 + e) with e = exp(−2|x|) computed as
// 2^(−k/64) · exp(r), k = round(128|x| / ln 2), r = 2(k ln 2/128 − |x|), |r| ≤ ln 2/128, the powers
// of two from a table (28 kB) and exp(r) from its degree-5 Taylor polynomial (relative truncation
// error < 4e-17; the finer table buys two fewer terms than a 2^(−k/32) one). Written for a short
// dependency chain, since the gradient's loops are latency-bound: k is rounded by adding and
// subtracting 1.5·2^52 (exact for 0 ≤ k < 2^51; the int conversion for the table index is then off
// the chain) and the polynomial is evaluated in Estrin's scheme. No data-dependent branch but the
// final sign; NaN propagates through the arithmetic (NaN | 0 is 0, a valid index). Its absolute
// error is below 4e-16 everywhere (tested against Math.tanh), it is exactly odd, and |x| is clamped
// at 19.1, beyond which tanh rounds to ±1. The gradient uses 1 − tanh², consistent with this
// function to the same precision.
const LN2_HI_128 = 6.9314718036912382e-1 / 128; // fdlibm's ln2_hi: k·LN2_HI_128 is exact for k < 2^20
const LN2_LO_128 = 1.9082149292705877e-10 / 128;
const HUNDRED_TWENTY_EIGHT_OVER_LN2 = 128 / Math.LN2;
const ROUNDER = 1.5 * 2 ** 52;
const CUTOFF = 19.1;
const POW2_NEG_64 = (() => {
  const t = new Float64Array(Math.ceil(CUTOFF * HUNDRED_TWENTY_EIGHT_OVER_LN2) + 2);
  for (let k = 0; k < t.length; k++) t[k] = 2 ** (-k / 64);
  return t;
})();

/**
 * The hyperbolic tangent, within 4e-16 of Math.tanh (absolute error) and about three times faster in
 * V8 (see the comment above). Odd: tanh(−x) === −tanh(x). NaN gives NaN. Exported for tests and
 * benchmarks.
 */
export function tanh(x: number): number {
  const a = Math.min(Math.abs(x), CUTOFF);
  const k = a * HUNDRED_TWENTY_EIGHT_OVER_LN2 + ROUNDER - ROUNDER; // round(128a / ln 2), as a double
  // r = 2(k ln 2/128 − a), with ln 2 in two parts so that no digits are lost.
  const r = 2 * (k * LN2_HI_128 - a + k * LN2_LO_128);
  const r2 = r * r;
  const p = 1 + r + r2 * (0.5 + r * (1 / 6) + r2 * (1 / 24 + r * (1 / 120)));
  const e = POW2_NEG_64[k | 0] * p;
  const t = (1 - e) / (1 + e);
  return x < 0 ? -t : t;
}

/** Numbers of inputs, hidden units and outputs of a network. */
export interface MlpShape {
  /** Number of inputs I ≥ 1. */
  readonly inputs: number;
  /** Number of tanh hidden units H ≥ 1. */
  readonly hidden: number;
  /** Number of linear outputs O ≥ 1. */
  readonly outputs: number;
}

/** The names of the four weight groups, in layout order. */
export const MLP_GROUPS = ["inputHidden", "hiddenBias", "hiddenOutput", "outputBias"] as const;

/** The number of weight groups, each with its own prior precision. */
export const GROUP_COUNT = MLP_GROUPS.length;

/** One of the four weight groups. */
export type MlpGroupName = (typeof MLP_GROUPS)[number];

/** Where a weight group sits in the weight vector. */
export interface MlpGroup {
  readonly name: MlpGroupName;
  /** Index of the group's first weight. */
  readonly offset: number;
  /** Number of weights in the group. */
  readonly length: number;
}

/** A network: its shape, the layout of its weight vector, and a forward pass. */
export interface Mlp extends MlpShape {
  /** Length of the weight vector: H·I + H + O·H + O. */
  readonly size: number;
  /** The four groups in layout order: inputHidden, hiddenBias, hiddenOutput, outputBias. */
  readonly groups: readonly MlpGroup[];
  /** Index k such that `groups[k].name === name`. */
  groupIndex(name: MlpGroupName): number;
  /** Parameter names in layout order, e.g. "u[h=0,i=1]", "c[0]", "v[o=1,h=0]", "b[1]". */
  readonly names: readonly string[];
  /**
   * Writes f(x; w) for the rows of the n × I row-major matrix X into `out` (n × O row-major).
   * Allocates nothing.
   */
  predict(w: Float64Array, X: Float64Array, n: number, out: Float64Array): void;
}

function checkShape(shape: MlpShape): void {
  if (shape === null || typeof shape !== "object") {
    throw new OccamError("invalid-argument", "createMlp: give { inputs, hidden, outputs }.");
  }
  for (const key of ["inputs", "hidden", "outputs"] as const) {
    const v = shape[key];
    if (!(Number.isInteger(v) && v >= 1)) {
      throw new OccamError(
        "invalid-argument",
        `createMlp: ${key} must be an integer ≥ 1, got ${v}${key === "hidden" ? " (a network needs at least one hidden unit)" : ""}.`,
      );
    }
  }
}

/**
 * Builds a one-hidden-layer tanh network of the given shape (layout in this module's header).
 * Throws an `OccamError` unless inputs, hidden and outputs are integers ≥ 1.
 *
 * @example
 * const net = createMlp({ inputs: 2, hidden: 16, outputs: 2 }); // net.size === 82
 */
export function createMlp(shape: MlpShape): Mlp {
  checkShape(shape);
  const I = shape.inputs;
  const H = shape.hidden;
  const O = shape.outputs;
  const oc = H * I;
  const ov = oc + H;
  const ob = ov + O * H;
  const size = ob + O;
  const groups: readonly MlpGroup[] = Object.freeze([
    Object.freeze({ name: "inputHidden" as const, offset: 0, length: H * I }),
    Object.freeze({ name: "hiddenBias" as const, offset: oc, length: H }),
    Object.freeze({ name: "hiddenOutput" as const, offset: ov, length: O * H }),
    Object.freeze({ name: "outputBias" as const, offset: ob, length: O }),
  ]);
  const names: string[] = [];
  for (let h = 0; h < H; h++) for (let i = 0; i < I; i++) names.push(`u[h=${h},i=${i}]`);
  for (let h = 0; h < H; h++) names.push(`c[${h}]`);
  for (let o = 0; o < O; o++) for (let h = 0; h < H; h++) names.push(`v[o=${o},h=${h}]`);
  for (let o = 0; o < O; o++) names.push(`b[${o}]`);
  const hid = new Float64Array(H);

  return Object.freeze({
    inputs: I,
    hidden: H,
    outputs: O,
    size,
    groups,
    names: Object.freeze(names),
    groupIndex(name: MlpGroupName): number {
      const k = MLP_GROUPS.indexOf(name);
      if (k < 0) throw new OccamError("invalid-argument", `unknown weight group "${name}".`);
      return k;
    },
    predict(w: Float64Array, X: Float64Array, n: number, out: Float64Array): void {
      if (w.length !== size || X.length < n * I || out.length < n * O) {
        throw new OccamError(
          "dimension-mismatch",
          `Mlp.predict: need w of length ${size}, X of length ≥ n·I = ${n * I} and out of length ≥ n·O = ${n * O}; got ${w.length}, ${X.length}, ${out.length}.`,
        );
      }
      for (let r = 0; r < n; r++) {
        const xr = r * I;
        for (let h = 0; h < H; h++) {
          let a = w[oc + h];
          const uh = h * I;
          for (let i = 0; i < I; i++) a += w[uh + i] * X[xr + i];
          hid[h] = tanh(a);
        }
        for (let o = 0; o < O; o++) {
          let f = w[ob + o];
          const vo = ov + o * H;
          for (let h = 0; h < H; h++) f += w[vo + h] * hid[h];
          out[r * O + o] = f;
        }
      }
    },
  });
}

/** The sum of squared errors of a network on a fixed data set, with its gradient. */
export interface SumOfSquares {
  /** The network. */
  readonly network: Mlp;
  /** Number of cases N. */
  readonly n: number;
  /** S(w) = Σ_n Σ_o (f_o(x_n; w) − y_{n,o})². Allocates nothing. */
  value(w: Float64Array): number;
  /**
   * Writes ∂S/∂w into `grad` (length `network.size`) and returns S(w), by backpropagation.
   * Allocates nothing: the hidden activations and output errors live in buffers made once.
   */
  gradient(w: Float64Array, grad: Float64Array): number;
  /** Writes the squared error of each output, Σ_n (f_o(x_n) − y_{n,o})², into `out` (length O). */
  perOutput(w: Float64Array, out: Float64Array): void;
}

/**
 * The sum of squared errors S(w) = Σ_n ‖f(x_n; w) − y_n‖² of `network` on the n × I inputs `X` and
 * n × O targets `Y` (row-major), with its gradient by backpropagation (thesis eqs. 6.41–6.42 with
 * δ = 2(f − y), the derivative of the square). The data are copied; scratch buffers are made once,
 * so `value` and `gradient` allocate nothing per call.
 *
 * Hand-written rather than generic autodiff: the gradient is the hot loop of hybrid Monte Carlo
 * (thousands of calls per second). Networks with at most two inputs and two outputs (the robot arm)
 * get an unrolled loop, about 3× faster than the general one used for other shapes; both agree with
 * plain backpropagation to rounding (tested to 1e-12). With 2 inputs, 16 hidden units, 2 outputs and
 * 200 cases a gradient takes ~45 µs of CPU on a 2.1 GHz Xeon (bench/mlp.bench.ts).
 *
 * @example
 * const s = sumOfSquares(net, X, Y, 200);
 * const g = new Float64Array(net.size);
 * const value = s.gradient(w, g);
 */
export function sumOfSquares(
  network: Mlp,
  X: ArrayLike<number>,
  Y: ArrayLike<number>,
  n: number,
): SumOfSquares {
  const I = network.inputs;
  const O = network.outputs;
  if (!(Number.isInteger(n) && n >= 1)) {
    throw new OccamError("invalid-argument", `sumOfSquares: n must be an integer ≥ 1, got ${n}.`);
  }
  if (X.length !== n * I || Y.length !== n * O) {
    throw new OccamError(
      "dimension-mismatch",
      `sumOfSquares: X must have n·I = ${n * I} entries and Y n·O = ${n * O}; got ${X.length} and ${Y.length}.`,
    );
  }
  const x = Float64Array.from(X);
  const y = Float64Array.from(Y);
  for (let k = 0; k < x.length; k++) {
    if (!Number.isFinite(x[k])) {
      throw new OccamError("invalid-data", `sumOfSquares: input X[${k}] is ${x[k]}; inputs must be finite.`);
    }
  }
  for (let k = 0; k < y.length; k++) {
    if (!Number.isFinite(y[k])) {
      throw new OccamError(
        "invalid-data",
        `sumOfSquares: target Y[${k}] is ${y[k]}; targets must be finite.`,
      );
    }
  }
  return I <= 2 && O <= 2 ? smallSumOfSquares(network, x, y, n) : generalSumOfSquares(network, x, y, n);
}

function checkWeights(w: Float64Array, size: number): void {
  if (w.length !== size) {
    throw new OccamError(
      "dimension-mismatch",
      `sumOfSquares: the weight vector has length ${w.length}, the network needs ${size}.`,
    );
  }
}

function checkGradient(grad: Float64Array, size: number): void {
  if (grad.length !== size) {
    throw new OccamError(
      "dimension-mismatch",
      `sumOfSquares: the gradient buffer has length ${grad.length}, the network needs ${size}.`,
    );
  }
}

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
 * traffic and give the CPU two independent tanh chains to overlap. About 3× the general loop below.
 */
function smallSumOfSquares(network: Mlp, x: Float64Array, y: Float64Array, n: number): SumOfSquares {
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

/**
 * The sum of squares for any shape. Case-minor ("structure of arrays") copies of the data: every inner
 * loop runs over the n cases with a unit stride and no per-case inner loop over I, H or O, which in
 * V8 is several times faster than a loop over cases with short inner loops.
 */
function generalSumOfSquares(network: Mlp, x: Float64Array, y: Float64Array, n: number): SumOfSquares {
  const I = network.inputs;
  const H = network.hidden;
  const O = network.outputs;
  const size = network.size;
  const oc = H * I;
  const ov = oc + H;
  const ob = ov + O * H;
  // xt[i·n + r] is input i of case r, yt[o·n + r] target o.
  const xt = new Float64Array(I * n);
  const yt = new Float64Array(O * n);
  for (let r = 0; r < n; r++) {
    for (let i = 0; i < I; i++) xt[i * n + r] = x[r * I + i];
    for (let o = 0; o < O; o++) yt[o * n + r] = y[r * O + o];
  }
  const act = new Float64Array(H * n); // tanh activations, act[h·n + r]
  const err = new Float64Array(O * n); // residuals f − y, err[o·n + r]
  const back = new Float64Array(n);

  /** Fills act and err (residuals) and returns the sum of squares. */
  const forward = (w: Float64Array): number => {
    for (let h = 0; h < H; h++) {
      const base = h * n;
      const c = w[oc + h];
      const u = w[h * I];
      for (let r = 0; r < n; r++) act[base + r] = c + u * xt[r];
      for (let i = 1; i < I; i++) {
        const ui = w[h * I + i];
        const xi = i * n;
        for (let r = 0; r < n; r++) act[base + r] += ui * xt[xi + r];
      }
      for (let r = 0; r < n; r++) act[base + r] = tanh(act[base + r]);
    }
    let s = 0;
    for (let o = 0; o < O; o++) {
      const base = o * n;
      const b = w[ob + o];
      for (let r = 0; r < n; r++) err[base + r] = b - yt[base + r];
      for (let h = 0; h < H; h++) {
        const v = w[ov + o * H + h];
        const ah = h * n;
        for (let r = 0; r < n; r++) err[base + r] += v * act[ah + r];
      }
      for (let r = 0; r < n; r++) s += err[base + r] * err[base + r];
    }
    return s;
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
      for (let o = 0; o < O; o++) {
        let s = 0;
        for (let r = 0; r < n; r++) s += err[o * n + r] * err[o * n + r];
        out[o] = s;
      }
    },
    gradient(w: Float64Array, grad: Float64Array): number {
      checkWeights(w, size);
      checkGradient(grad, size);
      const s = forward(w);
      // Output layer, with δ = 2 (f − y): ∂S/∂b_o = Σ_r δ, ∂S/∂v_{o,h} = Σ_r δ tanh(a_h).
      for (let o = 0; o < O; o++) {
        const base = o * n;
        let gb = 0;
        for (let r = 0; r < n; r++) gb += err[base + r];
        grad[ob + o] = 2 * gb;
        for (let h = 0; h < H; h++) {
          const ah = h * n;
          let gv = 0;
          for (let r = 0; r < n; r++) gv += err[base + r] * act[ah + r];
          grad[ov + o * H + h] = 2 * gv;
        }
      }
      // Hidden layer: ∂S/∂a_h = (1 − tanh² a_h) Σ_o δ_o v_{o,h}.
      for (let h = 0; h < H; h++) {
        const ah = h * n;
        const v0 = 2 * w[ov + h];
        for (let r = 0; r < n; r++) back[r] = v0 * err[r];
        for (let o = 1; o < O; o++) {
          const v = 2 * w[ov + o * H + h];
          const base = o * n;
          for (let r = 0; r < n; r++) back[r] += v * err[base + r];
        }
        let gc = 0;
        for (let r = 0; r < n; r++) {
          const t = act[ah + r];
          const d = back[r] * (1 - t * t);
          back[r] = d;
          gc += d;
        }
        grad[oc + h] = gc;
        for (let i = 0; i < I; i++) {
          const xi = i * n;
          let gu = 0;
          for (let r = 0; r < n; r++) gu += back[r] * xt[xi + r];
          grad[h * I + i] = gu;
        }
      }
      return s;
    },
  });
}

/**
 * Random starting weights: each input→hidden weight and hidden bias N(0, scale²/I), each
 * hidden→output weight N(0, scale²/H), output biases 0 — the fan-in scaling that keeps the hidden
 * units out of saturation. Used to start optimisers and samplers.
 *
 * @param scale overall scale; 1 by default
 */
export function randomWeights(network: Mlp, rng: Rng, scale = 1): Float64Array {
  if (!(Number.isFinite(scale) && scale >= 0)) {
    throw new OccamError("invalid-argument", `randomWeights: scale must be finite and ≥ 0, got ${scale}.`);
  }
  const w = new Float64Array(network.size);
  const [ih, hb, ho] = network.groups;
  const sIn = scale / Math.sqrt(network.inputs);
  const sOut = scale / Math.sqrt(network.hidden);
  for (let k = 0; k < ih.length + hb.length; k++) w[k] = sIn * rng.normal();
  for (let k = 0; k < ho.length; k++) w[ho.offset + k] = sOut * rng.normal();
  return w;
}

/** A regression data set for a network: n cases of I inputs and O targets, row-major. */
export interface MlpData {
  /** Inputs, n × I row-major: X[r·I + i] is input i of case r. */
  readonly X: Float64Array;
  /** Targets, n × O row-major: Y[r·O + o] is target o of case r. */
  readonly Y: Float64Array;
  /** Number of cases. */
  readonly n: number;
  /** Number of inputs I. */
  readonly inputs: number;
  /** Number of targets O. */
  readonly outputs: number;
}

/**
 * Checks a data set's shape and values, naming `where` in the error: n, inputs and outputs positive
 * integers, X of length n·I and Y of length n·O, every value finite. Throws an `OccamError`.
 */
export function checkMlpData(data: MlpData, where: string): void {
  if (data === null || typeof data !== "object") {
    throw new OccamError("invalid-argument", `${where}: give data { X, Y, n, inputs, outputs }.`);
  }
  const { X, Y, n, inputs, outputs } = data;
  for (const [value, name] of [
    [n, "n"],
    [inputs, "inputs"],
    [outputs, "outputs"],
  ] as const) {
    if (!(Number.isInteger(value) && value >= 1)) {
      throw new OccamError(
        "invalid-argument",
        `${where}: data.${name} must be an integer ≥ 1, got ${value}.`,
      );
    }
  }
  if (!(X instanceof Float64Array) || X.length !== n * inputs) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: data.X must be a Float64Array of length n·inputs = ${n * inputs}, got ${X instanceof Float64Array ? `length ${X.length}` : String(X)}.`,
    );
  }
  if (!(Y instanceof Float64Array) || Y.length !== n * outputs) {
    throw new OccamError(
      "dimension-mismatch",
      `${where}: data.Y must be a Float64Array of length n·outputs = ${n * outputs}, got ${Y instanceof Float64Array ? `length ${Y.length}` : String(Y)}.`,
    );
  }
  for (let k = 0; k < X.length; k++) {
    if (!Number.isFinite(X[k])) {
      throw new OccamError(
        "invalid-data",
        `${where}: input ${k % inputs} of case ${Math.floor(k / inputs)} is ${X[k]}; inputs must be finite.`,
      );
    }
  }
  for (let k = 0; k < Y.length; k++) {
    if (!Number.isFinite(Y[k])) {
      throw new OccamError(
        "invalid-data",
        `${where}: target ${k % outputs} of case ${Math.floor(k / outputs)} is ${Y[k]}; targets must be finite.`,
      );
    }
  }
}
