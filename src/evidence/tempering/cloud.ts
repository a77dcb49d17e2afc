/**
 * The particle cloud of the tempering engine: N positions with their log prior and log likelihood,
 * drawn from the prior, reweighted, resampled within islands, and summarised by its weighted mean
 * and covariance (which tune the moves).
 */
import { OccamError } from "../../errors.js";
import { choleskyInPlace } from "../../math/linalg.js";
import type { BayesModel } from "../../model/model.js";
import type { Rng } from "../../random/rng.js";
import { isUsableLogDensity } from "../../samplers/accept.js";
import { showPoint } from "../checks.js";

/** A particle system: N positions (row-major N × d) with their log prior and log likelihood. */
export interface ParticleCloud {
  readonly n: number;
  readonly dim: number;
  readonly positions: Float64Array;
  readonly logPrior: Float64Array;
  readonly logLikelihood: Float64Array;
}

/** Counts likelihood evaluations and checks every value, naming where it was computed. */
export class LikelihoodCounter {
  /** Likelihood (or likelihood-gradient) evaluations so far. */
  evaluations = 0;
  /** Proposals that fell where the prior is zero (a wall the model did not declare in `bounds`). */
  outOfSupport = 0;
  /**
   * Prior draws where the log likelihood was NaN or +∞, each weighed as a zero likelihood (a model
   * that overflows in its prior's tail); a move's proposal with such a value is a divergence instead.
   */
  nonFinite = 0;
  constructor(
    private readonly model: BayesModel,
    /** The estimator's name, for messages. */
    readonly where: string,
  ) {}

  /** log L(θ), checked: NaN or +∞ throws `non-finite` naming `context` (e.g. "β = 0.3"). */
  logLikelihood(theta: Float64Array, context: string): number {
    this.evaluations++;
    return this.check(this.model.logLikelihood(theta), "logLikelihood", theta, context);
  }

  /** log p(θ), checked likewise (not counted as a likelihood evaluation). */
  logPrior(theta: Float64Array, context: string): number {
    return this.check(this.model.logPrior(theta), "logPrior", theta, context);
  }

  /** log p(θ) at a move's proposal, unchecked: the move takes NaN or +∞ for a divergence. */
  proposalLogPrior(theta: Float64Array): number {
    return this.model.logPrior(theta);
  }

  /** log L(θ) at a move's proposal, counted and unchecked: the move takes NaN or +∞ for a divergence. */
  proposalLogLikelihood(theta: Float64Array): number {
    this.evaluations++;
    return this.model.logLikelihood(theta);
  }

  /**
   * log L(θ) at a prior draw, counted: NaN or +∞ (the model overflows there) is counted in
   * `nonFinite` and weighed as a zero likelihood, never thrown.
   */
  priorDrawLogLikelihood(theta: Float64Array): number {
    this.evaluations++;
    const value = this.model.logLikelihood(theta);
    if (isUsableLogDensity(value)) return value;
    this.nonFinite++;
    return Number.NEGATIVE_INFINITY;
  }

  /** Throws `non-finite` unless `value` is finite or −∞. */
  check(value: number, what: string, theta: Float64Array, context: string): number {
    if (Number.isNaN(value) || value === Number.POSITIVE_INFINITY) {
      throw new OccamError(
        "non-finite",
        `${this.where}: model.${what} is ${value} at ${showPoint(theta)} (${context}); it must return a finite number or −Infinity.`,
      );
    }
    return value;
  }
}

/** `n` independent prior draws with their log prior and log likelihood. */
export function priorCloud(
  model: BayesModel,
  n: number,
  rng: Rng,
  counter: LikelihoodCounter,
): ParticleCloud {
  const d = model.dim;
  const positions = new Float64Array(n * d);
  const logPrior = new Float64Array(n);
  const logLikelihood = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = model.samplePrior(rng);
    if (!(x instanceof Float64Array) || x.length !== d) {
      throw new OccamError(
        "dimension-mismatch",
        `${counter.where}: model.samplePrior must return a Float64Array of length ${d} (model.dim).`,
      );
    }
    positions.set(x, i * d);
    logPrior[i] = counter.logPrior(x, `prior draw ${i}`);
    if (!(logPrior[i] > Number.NEGATIVE_INFINITY)) {
      throw new OccamError(
        "non-finite",
        `${counter.where}: model.logPrior is −Infinity at its own prior draw ${i}.`,
      );
    }
    logLikelihood[i] = counter.priorDrawLogLikelihood(x);
  }
  return { n, dim: d, positions, logPrior, logLikelihood };
}

/** The weighted mean and the lower Cholesky factor of the weighted covariance of a cloud. */
export interface CloudShape {
  readonly mean: Float64Array;
  /** Lower Cholesky factor L (d × d, row-major) of the covariance: the moves' metric. */
  readonly cholesky: Float64Array;
}

/** A {@link CloudShape} with its buffers, to be filled by {@link measureCloud}. */
export function cloudShape(d: number): CloudShape {
  return { mean: new Float64Array(d), cholesky: new Float64Array(d * d) };
}

/**
 * Fills `shape` with the weighted mean and the Cholesky factor of the weighted covariance of the
 * cloud under weights e^{logW} (any scale), with the reliability-weights correction 1/(1 − Σw²).
 * A singular covariance (a collapsed cloud, fewer distinct particles than dimensions) gets a jitter
 * of 10⁻⁸ · mean variance on the diagonal, growing tenfold until the factorisation succeeds.
 */
export function measureCloud(
  cloud: ParticleCloud,
  logW: Float64Array,
  shape: CloudShape,
  work: Float64Array,
): void {
  const { n, dim: d, positions } = cloud;
  const { mean, cholesky: out } = shape;
  const { max, total } = weightedMean(cloud, logW, mean);
  out.fill(0);
  let sumW2 = 0;
  for (let i = 0; i < n; i++) {
    const w = Math.exp(logW[i] - max) / total;
    if (w === 0) continue;
    sumW2 += w * w;
    const row = i * d;
    for (let a = 0; a < d; a++) {
      const da = w * (positions[row + a] - mean[a]);
      for (let b = 0; b <= a; b++) out[a * d + b] += da * (positions[row + b] - mean[b]);
    }
  }
  const correction = sumW2 < 1 ? 1 / (1 - sumW2) : 1;
  for (let a = 0; a < d; a++) for (let b = 0; b <= a; b++) out[a * d + b] *= correction;
  factorCovariance(out, work, d);
}

/**
 * For each island, the shape (see {@link measureCloud}) of the *other* islands' particles, with the
 * buffers to measure it. A proposal fitted to the particles it then moves is not independent of them:
 * in many dimensions its density is higher at the particles that fitted it than at fresh draws, so
 * they leave too readily, the tails first, and the cloud ends too narrow (log Z high). Leaving an
 * island's own particles out removes that at a small loss of precision, since islands are independent.
 */
export class IslandComplementShapes {
  /** `shapes[g]`: the weighted mean and covariance factor of every island but g. */
  readonly shapes: readonly CloudShape[];
  private readonly mean: Float64Array;
  private readonly scatter: Float64Array;
  private readonly weight: Float64Array;
  private readonly squares: Float64Array;
  private readonly work: Float64Array;

  constructor(
    readonly islands: number,
    private readonly d: number,
  ) {
    this.shapes = Array.from({ length: islands }, () => cloudShape(d));
    this.mean = new Float64Array(d);
    this.scatter = new Float64Array(d * d);
    this.weight = new Float64Array(islands);
    this.squares = new Float64Array(islands);
    this.work = new Float64Array(d * d);
  }

  /**
   * Measures the shapes under weights e^{logW} (any scale). Each island's sums about the whole
   * cloud's mean m are taken once (its first moment into its shape's mean, its scatter into its
   * Cholesky buffer); the rest's are the totals less the island's. Where the other islands have
   * (nearly) zero weight, the island's own particles are used.
   */
  measure(cloud: ParticleCloud, logW: Float64Array): void {
    const { n, positions } = cloud;
    const { d, islands: G, mean: m, scatter, weight, squares } = this;
    const { max, total: allWeight } = weightedMean(cloud, logW, m);
    scatter.fill(0);
    weight.fill(0);
    squares.fill(0);
    let allSquares = 0;
    for (let g = 0; g < G; g++) {
      const { mean: u, cholesky: s } = this.shapes[g];
      u.fill(0);
      s.fill(0);
      for (let i = islandStart(g, G, n); i < islandStart(g + 1, G, n); i++) {
        const w = Math.exp(logW[i] - max);
        if (w === 0) continue;
        weight[g] += w;
        squares[g] += w * w;
        const row = i * d;
        for (let a = 0; a < d; a++) {
          const da = w * (positions[row + a] - m[a]);
          u[a] += da;
          for (let b = 0; b <= a; b++) s[a * d + b] += da * (positions[row + b] - m[b]);
        }
      }
      for (let k = 0; k < d * d; k++) scatter[k] += s[k];
      allSquares += squares[g];
    }
    for (let g = 0; g < G; g++) {
      const { mean: u, cholesky: s } = this.shapes[g];
      // Where the rest's weight is negligible, their scatter is lost to rounding in the subtraction.
      const alone = weight[g] > (1 - 1e-9) * allWeight;
      const rest = alone ? allWeight : allWeight - weight[g];
      const normalisedSquares = (alone ? allSquares : allSquares - squares[g]) / (rest * rest);
      const correction = normalisedSquares < 1 ? 1 / (1 - normalisedSquares) : 1;
      // The rest's first moment about m is −u (the whole cloud's is 0); their mean is m − u / rest.
      for (let a = 0; a < d; a++) u[a] = alone ? 0 : -u[a] / rest;
      for (let a = 0; a < d; a++) {
        for (let b = 0; b <= a; b++) {
          const restScatter = alone ? scatter[a * d + b] : scatter[a * d + b] - s[a * d + b];
          s[a * d + b] = correction * (restScatter / rest - u[a] * u[b]);
        }
      }
      for (let a = 0; a < d; a++) u[a] += m[a];
      factorCovariance(s, this.work, d);
    }
  }
}

/**
 * The posterior's mean and covariance pooled over a run's stages, for a reference fitted to the run
 * (see `fitReference`). The final cloud is one stage's particles resampled; the clouds of the stages
 * before it, each reweighted by L^{1−β} to β = 1, are importance samples of the posterior too, and
 * together hold more distinct draws. In 50 dimensions the covariance of a pilot's 256 draws is rough:
 * on the correlated Gaussian, stepping-stone's runs from a reference fitted to its final cloud cost
 * 22–24 % of a run from the prior (the budget that cuts them is 25 %), from the pooled shape 16–21 %
 * (seeds 1–4 and 8–13). Each stage enters with the Kish ESS of its weights, and only where that is a
 * quarter of the particles or more: a few draws would carry the stages further from β = 1.
 */
export class PooledPosterior {
  private readonly logW: Float64Array;
  private readonly scatter: Float64Array;
  private readonly means: Float64Array[] = [];
  private readonly sizes: number[] = [];

  constructor(
    private readonly n: number,
    private readonly d: number,
  ) {
    this.logW = new Float64Array(n);
    this.scatter = new Float64Array(d * d);
  }

  /** Adds the cloud at β, moved there, under its weights e^{logW} at β. */
  add(cloud: ParticleCloud, logW: Float64Array, beta: number): void {
    const { n, d } = this;
    const { positions, logLikelihood } = cloud;
    const weights = this.logW;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      // At β = 1 no reweighting (and no 0 · −∞ where a particle kept at weight 0 has zero likelihood).
      weights[i] = beta === 1 ? logW[i] : logW[i] + (1 - beta) * logLikelihood[i];
      if (weights[i] > max) max = weights[i];
    }
    let total = 0;
    for (let i = 0; i < n; i++) {
      weights[i] = Math.exp(weights[i] - max);
      total += weights[i];
    }
    let sumW2 = 0;
    for (let i = 0; i < n; i++) {
      weights[i] /= total;
      sumW2 += weights[i] * weights[i];
    }
    const ess = 1 / sumW2;
    if (!(ess >= n / 4 && sumW2 < 1)) return;
    const mean = new Float64Array(d);
    for (let i = 0; i < n; i++) {
      if (weights[i] === 0) continue;
      for (let a = 0; a < d; a++) mean[a] += weights[i] * positions[i * d + a];
    }
    // Each stage's covariance with the reliability-weights correction, times its ESS.
    const scale = ess / (1 - sumW2);
    for (let i = 0; i < n; i++) {
      if (weights[i] === 0) continue;
      const w = scale * weights[i];
      const row = i * d;
      for (let a = 0; a < d; a++) {
        const da = w * (positions[row + a] - mean[a]);
        for (let b = 0; b <= a; b++) this.scatter[a * d + b] += da * (positions[row + b] - mean[b]);
      }
    }
    this.means.push(mean);
    this.sizes.push(ess);
  }

  /** The pooled shape, or undefined when no stage was added. */
  shape(): CloudShape | undefined {
    const { d, means, sizes } = this;
    if (means.length === 0) return undefined;
    const shape = cloudShape(d);
    const { mean, cholesky: covariance } = shape;
    let total = 0;
    for (let k = 0; k < means.length; k++) {
      total += sizes[k];
      for (let a = 0; a < d; a++) mean[a] += sizes[k] * means[k][a];
    }
    for (let a = 0; a < d; a++) mean[a] /= total;
    // Within the stages, and between their means.
    covariance.set(this.scatter);
    for (let k = 0; k < means.length; k++) {
      for (let a = 0; a < d; a++) {
        const da = sizes[k] * (means[k][a] - mean[a]);
        for (let b = 0; b <= a; b++) covariance[a * d + b] += da * (means[k][b] - mean[b]);
      }
    }
    for (let a = 0; a < d; a++) for (let b = 0; b <= a; b++) covariance[a * d + b] /= total;
    factorCovariance(covariance, new Float64Array(d * d), d);
    return shape;
  }
}

/**
 * Writes the cloud's mean under weights e^{logW} (any scale) into `mean`; returns the largest log
 * weight and the total of the weights e^{logW − max}.
 */
function weightedMean(
  cloud: ParticleCloud,
  logW: Float64Array,
  mean: Float64Array,
): { max: number; total: number } {
  const { n, dim: d, positions } = cloud;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) if (logW[i] > max) max = logW[i];
  let total = 0;
  mean.fill(0);
  for (let i = 0; i < n; i++) {
    const w = Math.exp(logW[i] - max);
    total += w;
    for (let j = 0; j < d; j++) mean[j] += w * positions[i * d + j];
  }
  for (let j = 0; j < d; j++) mean[j] /= total;
  return { max, total };
}

/**
 * Replaces the lower triangle of the covariance `out` (d × d, row-major) by its Cholesky factor. A
 * singular covariance (a collapsed cloud, fewer distinct particles than dimensions) gets a jitter of
 * 10⁻⁸ · mean variance on the diagonal, growing tenfold until the factorisation succeeds.
 */
function factorCovariance(out: Float64Array, work: Float64Array, d: number): void {
  let trace = 0;
  for (let a = 0; a < d; a++) trace += out[a * d + a];
  const base = trace > 0 && Number.isFinite(trace) ? trace / d : 1;
  for (let jitter = 0; ; jitter = jitter === 0 ? 1e-8 * base : jitter * 10) {
    work.set(out);
    for (let a = 0; a < d; a++) work[a * d + a] += jitter;
    try {
      choleskyInPlace(work, d);
      out.set(work);
      return;
    } catch (error) {
      if (!(error instanceof OccamError) || jitter > 1e6 * base) {
        throw new OccamError(
          "non-finite",
          `the particle cloud's covariance cannot be factorised (${error instanceof Error ? error.message : String(error)}); check the model for non-finite values.`,
        );
      }
    }
  }
}

/** The first particle of island g of G over n particles: islands are contiguous, sizes differ by at most one. */
export function islandStart(g: number, islands: number, n: number): number {
  return Math.floor((g * n) / islands);
}

/**
 * Systematic resampling within each island (Douc, Cappé & Moulines 2005: one uniform per island,
 * particles chosen at (u + i)/n on the cumulative weights): writes into `index` the old particle
 * each new one copies, always from its own island, so that islands stay independent.
 */
export function resampleIslands(logW: Float64Array, islands: number, rng: Rng, index: Int32Array): void {
  const n = logW.length;
  for (let g = 0; g < islands; g++) {
    const from = islandStart(g, islands, n);
    const to = islandStart(g + 1, islands, n);
    let max = Number.NEGATIVE_INFINITY;
    for (let i = from; i < to; i++) if (logW[i] > max) max = logW[i];
    const size = to - from;
    if (max === Number.NEGATIVE_INFINITY) {
      // Every weight is zero (an island that lost all its particles): nothing to choose from.
      for (let i = from; i < to; i++) index[i] = i;
      continue;
    }
    let total = 0;
    for (let i = from; i < to; i++) total += Math.exp(logW[i] - max);
    const u = rng.uniform();
    let j = from;
    let cumulative = Math.exp(logW[from] - max) / total;
    for (let i = 0; i < size; i++) {
      const point = (u + i) / size;
      while (point > cumulative && j < to - 1) {
        j++;
        cumulative += Math.exp(logW[j] - max) / total;
      }
      index[from + i] = j;
    }
  }
}

/** Reorders the cloud in place by `index` (particle i becomes old particle index[i]). */
export function reorderCloud(
  cloud: ParticleCloud,
  index: Int32Array,
  scratch: Float64Array,
  scratchN: Float64Array,
): void {
  const { n, dim: d, positions } = cloud;
  scratch.set(positions);
  for (let i = 0; i < n; i++) positions.set(scratch.subarray(index[i] * d, (index[i] + 1) * d), i * d);
  scratchN.set(cloud.logPrior);
  for (let i = 0; i < n; i++) cloud.logPrior[i] = scratchN[index[i]];
  scratchN.set(cloud.logLikelihood);
  for (let i = 0; i < n; i++) cloud.logLikelihood[i] = scratchN[index[i]];
}
