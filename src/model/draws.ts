import { OccamError } from "../errors.js";

/** What a chain's run cost and how it behaved, filled in by `runChain`. */
export interface ChainStats {
  /** Mean Metropolis–Hastings acceptance probability over the sampling (post-warm-up) steps; NaN when unknown. */
  acceptanceRate: number;
  /** Divergent transitions among the sampling steps (warm-up divergences are not counted). */
  divergences: number;
  /** Density evaluations of the sampling steps (sum of `info.evaluations`). */
  evaluations: number;
  /** Density evaluations of the warm-up steps. */
  warmupEvaluations: number;
  /** Sampling steps whose NUTS trajectory stopped at the maximum tree depth (absent for other kernels). */
  treeDepthLimited?: number;
}

/** The shape of a {@link Draws} store. */
export interface DrawsInit {
  /** Number of parameters. */
  dim: number;
  /** Number of chains. */
  nChains: number;
  /** Kept draws per chain. */
  nDraws: number;
  /** One name per parameter. @defaultValue ["theta[0]", "theta[1]", …] */
  names?: readonly string[];
}

/**
 * Log densities for {@link Draws.fromArrays}: one per draw, either flat (chain after chain) or one
 * array per chain.
 */
export type LogDensityInput = ArrayLike<number> | readonly ArrayLike<number>[];

function unknownStats(): ChainStats {
  return { acceptanceRate: Number.NaN, divergences: 0, evaluations: 0, warmupEvaluations: 0 };
}

/**
 * The trace store: `nDraws` kept draws of a `dim`-dimensional parameter from each of `nChains` chains,
 * with the log target density at each draw. Values live in one Float64Array, chain-major:
 * coordinate j of draw t of chain c is `values[(c * nDraws + t) * dim + j]`.
 */
export class Draws {
  /** Number of parameters. */
  readonly dim: number;
  /** Number of chains. */
  readonly nChains: number;
  /** Kept draws per chain. */
  readonly nDraws: number;
  /** One name per parameter. */
  readonly names: readonly string[];
  /** All draws, index `((c * nDraws) + t) * dim + j`. */
  readonly values: Float64Array;
  /** Log target density at each kept draw, index `c * nDraws + t`; NaN where unknown. */
  readonly logDensity: Float64Array;
  /** One entry per chain, filled by `runChain` (NaN acceptance rate and zero counts otherwise). */
  readonly stats: ChainStats[];

  /** An empty (all-zero) store of the given shape, to be filled in. */
  constructor(init: DrawsInit) {
    const { dim, nChains, nDraws, names } = init;
    for (const [value, name] of [
      [dim, "dim"],
      [nChains, "nChains"],
      [nDraws, "nDraws"],
    ] as const) {
      if (!(Number.isInteger(value) && value >= 1)) {
        throw new OccamError("invalid-argument", `Draws: ${name} must be a positive integer, got ${value}.`);
      }
    }
    if (names !== undefined && names.length !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `Draws: names has ${names.length} entries but dim is ${dim}; give one name per parameter.`,
      );
    }
    this.dim = dim;
    this.nChains = nChains;
    this.nDraws = nDraws;
    this.names = Object.freeze(names ? [...names] : Array.from({ length: dim }, (_, j) => `theta[${j}]`));
    this.values = new Float64Array(nChains * nDraws * dim);
    this.logDensity = new Float64Array(nChains * nDraws);
    this.stats = Array.from({ length: nChains }, unknownStats);
  }

  /** Total number of draws over all chains. */
  get size(): number {
    return this.nChains * this.nDraws;
  }

  private checkChain(chain: number): void {
    if (!(Number.isInteger(chain) && chain >= 0 && chain < this.nChains)) {
      throw new OccamError(
        "invalid-argument",
        `Draws: chain must be an integer in [0, ${this.nChains - 1}], got ${chain}.`,
      );
    }
  }

  private checkCoordinate(j: number): void {
    if (!(Number.isInteger(j) && j >= 0 && j < this.dim)) {
      throw new OccamError(
        "invalid-argument",
        `Draws: parameter index must be an integer in [0, ${this.dim - 1}], got ${j}.`,
      );
    }
  }

  /** Draw `t` of chain `chain` as a view into {@link Draws.values} (no copy: do not keep it past a write). */
  draw(chain: number, t: number): Float64Array {
    this.checkChain(chain);
    if (!(Number.isInteger(t) && t >= 0 && t < this.nDraws)) {
      throw new OccamError(
        "invalid-argument",
        `Draws: draw index must be an integer in [0, ${this.nDraws - 1}], got ${t}.`,
      );
    }
    const start = (chain * this.nDraws + t) * this.dim;
    return this.values.subarray(start, start + this.dim);
  }

  /** A copy of coordinate j's trace: of one chain, or of all chains one after another when `chain` is omitted. */
  parameter(j: number, chain?: number): Float64Array {
    this.checkCoordinate(j);
    const { dim, nDraws, values } = this;
    if (chain !== undefined) {
      this.checkChain(chain);
      const out = new Float64Array(nDraws);
      const base = chain * nDraws * dim + j;
      for (let t = 0; t < nDraws; t++) out[t] = values[base + t * dim];
      return out;
    }
    const total = this.size;
    const out = new Float64Array(total);
    for (let i = 0; i < total; i++) out[i] = values[i * dim + j];
    return out;
  }

  /** Coordinate j's trace, one copy per chain: the input of ESS and R̂. */
  chains(j: number): Float64Array[] {
    this.checkCoordinate(j);
    const out: Float64Array[] = [];
    for (let c = 0; c < this.nChains; c++) out.push(this.parameter(j, c));
    return out;
  }

  /** Mean of each coordinate over all draws of all chains. */
  mean(): Float64Array {
    const { dim, values } = this;
    const total = this.size;
    const out = new Float64Array(dim);
    for (let i = 0; i < total; i++) {
      const row = i * dim;
      for (let j = 0; j < dim; j++) out[j] += values[row + j];
    }
    for (let j = 0; j < dim; j++) out[j] /= total;
    // Second pass: add the mean residual, which removes most of the rounding error of the first.
    const correction = new Float64Array(dim);
    for (let i = 0; i < total; i++) {
      const row = i * dim;
      for (let j = 0; j < dim; j++) correction[j] += values[row + j] - out[j];
    }
    for (let j = 0; j < dim; j++) out[j] += correction[j] / total;
    return out;
  }

  /**
   * Sample covariance over all draws of all chains, dim × dim row-major, with the n − 1 denominator.
   * Computed from centred values (two passes), which is accurate where E[x²] − E[x]² is not.
   */
  covariance(): Float64Array {
    const { dim, values } = this;
    const total = this.size;
    if (total < 2) {
      throw new OccamError("invalid-argument", "Draws.covariance: needs at least 2 draws, the store has 1.");
    }
    const mu = this.mean();
    const out = new Float64Array(dim * dim);
    const centred = new Float64Array(dim);
    for (let i = 0; i < total; i++) {
      const row = i * dim;
      for (let j = 0; j < dim; j++) centred[j] = values[row + j] - mu[j];
      for (let a = 0; a < dim; a++) {
        const ca = centred[a];
        for (let b = a; b < dim; b++) out[a * dim + b] += ca * centred[b];
      }
    }
    for (let a = 0; a < dim; a++) {
      for (let b = a; b < dim; b++) {
        const v = out[a * dim + b] / (total - 1);
        out[a * dim + b] = v;
        out[b * dim + a] = v;
      }
    }
    return out;
  }

  /**
   * A store for draws made elsewhere (another sampler, Stan output): `samples` is one chain (an array of
   * draws) or several (an array of chains, each an array of draws, all of the same length). `logDensity`
   * gives the log target density of each draw, flat (chain after chain) or one array per chain; without
   * it the log densities are NaN. Values are copied; non-finite values throw an `OccamError`.
   */
  static fromArrays(
    samples: readonly Float64Array[] | readonly (readonly Float64Array[])[],
    logDensity?: LogDensityInput,
    names?: readonly string[],
  ): Draws {
    if (!Array.isArray(samples) || samples.length === 0) {
      throw new OccamError(
        "invalid-argument",
        "Draws.fromArrays: samples must be a non-empty array of draws or of chains.",
      );
    }
    const chainList: readonly (readonly Float64Array[])[] =
      samples[0] instanceof Float64Array
        ? [samples as readonly Float64Array[]]
        : (samples as readonly (readonly Float64Array[])[]);
    const nChains = chainList.length;
    const first = chainList[0];
    if (!Array.isArray(first) || first.length === 0 || !(first[0] instanceof Float64Array)) {
      throw new OccamError(
        "invalid-argument",
        "Draws.fromArrays: samples must be an array of Float64Array draws, or an array of such arrays (one per chain).",
      );
    }
    const nDraws = first.length;
    const dim = first[0].length;
    const draws = new Draws({ dim, nChains, nDraws, names });
    for (let c = 0; c < nChains; c++) {
      const chain = chainList[c];
      if (!Array.isArray(chain) || chain.length !== nDraws) {
        throw new OccamError(
          "dimension-mismatch",
          `Draws.fromArrays: chain ${c} has ${Array.isArray(chain) ? chain.length : "no"} draws but chain 0 has ${nDraws}; give chains of equal length.`,
        );
      }
      for (let t = 0; t < nDraws; t++) {
        const x = chain[t];
        if (!(x instanceof Float64Array) || x.length !== dim) {
          throw new OccamError(
            "dimension-mismatch",
            `Draws.fromArrays: draw ${t} of chain ${c} must be a Float64Array of length ${dim} (the length of the first draw).`,
          );
        }
        for (let j = 0; j < dim; j++) {
          if (!Number.isFinite(x[j])) {
            throw new OccamError(
              "non-finite",
              `Draws.fromArrays: coordinate ${j} of draw ${t} of chain ${c} is ${x[j]}.`,
            );
          }
        }
        draws.values.set(x, (c * nDraws + t) * dim);
      }
    }
    if (logDensity === undefined) {
      draws.logDensity.fill(Number.NaN);
    } else {
      fillLogDensity(draws, logDensity);
    }
    return draws;
  }
}

function fillLogDensity(draws: Draws, input: LogDensityInput): void {
  const { nChains, nDraws } = draws;
  const total = nChains * nDraws;
  const perChain = input.length > 0 && typeof input[0] !== "number";
  if (perChain) {
    const chains = input as readonly ArrayLike<number>[];
    if (chains.length !== nChains) {
      throw new OccamError(
        "dimension-mismatch",
        `Draws.fromArrays: logDensity has ${chains.length} chains but samples has ${nChains}.`,
      );
    }
    for (let c = 0; c < nChains; c++) {
      if (chains[c].length !== nDraws) {
        throw new OccamError(
          "dimension-mismatch",
          `Draws.fromArrays: logDensity of chain ${c} has ${chains[c].length} values but the chain has ${nDraws} draws.`,
        );
      }
      for (let t = 0; t < nDraws; t++) draws.logDensity[c * nDraws + t] = chains[c][t];
    }
  } else {
    const flat = input as ArrayLike<number>;
    if (flat.length !== total) {
      throw new OccamError(
        "dimension-mismatch",
        `Draws.fromArrays: logDensity has ${flat.length} values but there are ${total} draws (${nChains} chains × ${nDraws}).`,
      );
    }
    for (let i = 0; i < total; i++) draws.logDensity[i] = flat[i];
  }
  for (let i = 0; i < total; i++) {
    if (!Number.isFinite(draws.logDensity[i])) {
      throw new OccamError(
        "non-finite",
        `Draws.fromArrays: the log density of draw ${i % nDraws} of chain ${Math.floor(i / nDraws)} is ${draws.logDensity[i]}; it must be finite.`,
      );
    }
  }
}
