/**
 * A one-hidden-layer perceptron with tanh hidden units and linear outputs (Fabricius thesis §6.3.1,
 * eqs. 6.35–6.37; Barber & Bishop §3): its weight layout, its forward pass and random starting
 * weights. The sum of squared errors and its gradient are in `sum-of-squares.ts`.
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
import { tanh } from "./tanh.js";

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
