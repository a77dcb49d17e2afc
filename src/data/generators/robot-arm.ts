import { OccamError } from "../../errors.js";
import { createRng } from "../../random/rng.js";

/** Options of {@link robotArmData}. */
export interface RobotArmDataOptions {
  /**
   * Number of cases.
   * @defaultValue 200 (the size of the thesis's training and test sets)
   */
  n?: number;
  /**
   * Standard deviation of the Gaussian noise on each output (the thesis also used 0.5).
   * @defaultValue 0.05
   */
  noiseSd?: number;
  /**
   * Seed of the generator.
   * @defaultValue 0
   */
  seed?: number;
}

/** Robot-arm cases: two joint angles in, the two Cartesian coordinates of the arm's end out. */
export interface RobotArmData {
  /** Inputs, n × 2 row-major: (x1, x2). */
  readonly X: Float64Array;
  /** Noisy targets, n × 2 row-major: (y1, y2). */
  readonly Y: Float64Array;
  /** The noise-free targets, n × 2 row-major. */
  readonly F: Float64Array;
  readonly n: number;
  readonly inputs: 2;
  readonly outputs: 2;
  readonly noiseSd: number;
}

const X1_LO = 0.453;
const X1_HI = 1.932;
const X2_LO = 0.534;
// biome-ignore lint/suspicious/noApproximativeNumericConstant: the bound as the thesis prints it (≈ π).
const X2_HI = 3.142;

/** The noise-free robot-arm map: y1 = 2 cos x1 + 1.3 cos(x1 + x2), y2 = 2 sin x1 + 1.3 sin(x1 + x2). */
export function robotArm(x1: number, x2: number): [number, number] {
  return [2 * Math.cos(x1) + 1.3 * Math.cos(x1 + x2), 2 * Math.sin(x1) + 1.3 * Math.sin(x1 + x2)];
}

/**
 * MacKay's robot-arm data (Fabricius thesis eqs. 6.75–6.76; Barber & Bishop §3):
 * y1 = 2 cos x1 + 1.3 cos(x1 + x2) + ε1, y2 = 2 sin x1 + 1.3 sin(x1 + x2) + ε2, ε ~ N(0, noiseSd²),
 * with x1 uniform on [−1.932, −0.453] ∪ [0.453, 1.932] and x2 uniform on [0.534, 3.142]. The thesis
 * uses 200 training and 200 test cases at noiseSd 0.05 (and 0.5); draw them with two seeds. The same
 * seed gives the same data. Throws an `OccamError` for n not a positive integer or noiseSd not ≥ 0.
 *
 * @example
 * const train = robotArmData({ n: 200, noiseSd: 0.05, seed: 1 });
 * const test = robotArmData({ n: 200, noiseSd: 0.05, seed: 2 });
 */
export function robotArmData(options: RobotArmDataOptions = {}): RobotArmData {
  const n = options.n ?? 200;
  const noiseSd = options.noiseSd ?? 0.05;
  const seed = options.seed ?? 0;
  if (!(Number.isInteger(n) && n >= 1)) {
    throw new OccamError("invalid-argument", `robotArmData: n must be a positive integer, got ${n}.`);
  }
  if (!(Number.isFinite(noiseSd) && noiseSd >= 0)) {
    throw new OccamError(
      "invalid-argument",
      `robotArmData: noiseSd must be a finite number ≥ 0, got ${noiseSd}.`,
    );
  }
  const rng = createRng(seed);
  const X = new Float64Array(2 * n);
  const Y = new Float64Array(2 * n);
  const F = new Float64Array(2 * n);
  for (let r = 0; r < n; r++) {
    // x1: a uniform magnitude on [0.453, 1.932] with a random sign (the two intervals have equal length).
    const sign = rng.uniform() < 0.5 ? -1 : 1;
    const x1 = sign * (X1_LO + (X1_HI - X1_LO) * rng.uniform());
    const x2 = X2_LO + (X2_HI - X2_LO) * rng.uniform();
    const [f1, f2] = robotArm(x1, x2);
    X[2 * r] = x1;
    X[2 * r + 1] = x2;
    F[2 * r] = f1;
    F[2 * r + 1] = f2;
    Y[2 * r] = f1 + noiseSd * rng.normal();
    Y[2 * r + 1] = f2 + noiseSd * rng.normal();
  }
  return Object.freeze({ X, Y, F, n, inputs: 2 as const, outputs: 2 as const, noiseSd });
}
