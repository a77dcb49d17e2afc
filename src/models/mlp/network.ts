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
// hot loops use this branch-free one: tanh|x| = (1 − e)/(1 + e) with e = exp(−2|x|) computed as
// 2^(−K/32) · exp(−r), K = round(64|x| / ln 2), |r| ≤ ln 2 / 64, the powers of two from a table and
// exp(−r) from its degree-7 Taylor polynomial (truncation error < 1e-18). Its absolute error is below
// 4e-16 everywhere (tested against Math.tanh); |x| is clamped at 19.1, beyond which tanh rounds to ±1.
// The gradient uses 1 − tanh², consistent with this function to the same precision.
const LN2_HI_32 = 6.9314718036912382e-1 / 32;
const LN2_LO_32 = 1.9082149292705877e-10 / 32;
const THIRTY_TWO_OVER_LN2 = 32 / Math.LN2;
const TWICE_CUTOFF = 2 * 19.1;
const POW2_NEG_32 = (() => {
  const t = new Float64Array(Math.ceil(TWICE_CUTOFF * THIRTY_TWO_OVER_LN2) + 2);
  for (let k = 0; k < t.length; k++) t[k] = 2 ** (-k / 32);
  return t;
})();

/**
 * The hyperbolic tangent, within 4e-16 of Math.tanh (absolute error) and about twice as fast in V8
 * (see the comment above). NaN gives NaN. Exported for tests and benchmarks.
 */
export function tanh(x: number): number {
  let y = x < 0 ? -2 * x : 2 * x;
  if (y > TWICE_CUTOFF) y = TWICE_CUTOFF;
  else if (!(y >= 0)) return Number.NaN;
  const k = (y * THIRTY_TWO_OVER_LN2 + 0.5) | 0;
  // r = −(y − k ln 2/32), in two parts so that no digits are lost.
  const r = k * LN2_HI_32 - y + k * LN2_LO_32;
  const e =
    POW2_NEG_32[k] *
    (1 + r * (1 + r * (0.5 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (1 / 720 + r / 5040)))))));
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
 * (thousands of calls per second), and one pass per case over typed arrays is what makes it fast.
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
  const H = network.hidden;
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
  const size = network.size;
  const oc = H * I;
  const ov = oc + H;
  const ob = ov + O * H;
  // Case-minor ("structure of arrays") copies: xt[i·n + r] is input i of case r, yt[o·n + r] target o.
  // Every inner loop then runs over the n cases with a unit stride and no per-case call, which is
  // several times faster in V8 than a loop over cases with short inner loops over I, H and O.
  const xt = new Float64Array(I * n);
  const yt = new Float64Array(O * n);
  for (let r = 0; r < n; r++) {
    for (let i = 0; i < I; i++) xt[i * n + r] = x[r * I + i];
    for (let o = 0; o < O; o++) yt[o * n + r] = y[r * O + o];
  }
  const act = new Float64Array(H * n); // tanh activations, act[h·n + r]
  const err = new Float64Array(O * n); // residuals f − y, err[o·n + r]
  const back = new Float64Array(n);

  const checkW = (w: Float64Array) => {
    if (w.length !== size) {
      throw new OccamError(
        "dimension-mismatch",
        `sumOfSquares: the weight vector has length ${w.length}, the network needs ${size}.`,
      );
    }
  };

  /** Fills act and err (residuals) and returns the sum of squares. */
  const forward = (w: Float64Array): number => {
    for (let h = 0; h < H; h++) {
      const base = h * n;
      const c = w[oc + h];
      for (let r = 0; r < n; r++) act[base + r] = c;
      for (let i = 0; i < I; i++) {
        const u = w[h * I + i];
        const xi = i * n;
        for (let r = 0; r < n; r++) act[base + r] += u * xt[xi + r];
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
      checkW(w);
      return forward(w);
    },
    perOutput(w: Float64Array, out: Float64Array): void {
      checkW(w);
      forward(w);
      for (let o = 0; o < O; o++) {
        let s = 0;
        for (let r = 0; r < n; r++) s += err[o * n + r] * err[o * n + r];
        out[o] = s;
      }
    },
    gradient(w: Float64Array, grad: Float64Array): number {
      checkW(w);
      if (grad.length !== size) {
        throw new OccamError(
          "dimension-mismatch",
          `sumOfSquares: the gradient buffer has length ${grad.length}, the network needs ${size}.`,
        );
      }
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
