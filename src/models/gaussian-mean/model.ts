import { checkSubsetIndices } from "../../data/folds.js";
import { OccamError } from "../../errors.js";
import { LOG_2PI } from "../../math/constants.js";
import { type BayesModel, defineModel } from "../../model/model.js";
import { createRng, type Rng } from "../../random/rng.js";

/** Options of {@link gaussianMeanModel}. */
export interface GaussianMeanOptions {
  /**
   * Dimension d of the mean μ (and of each observation).
   * @defaultValue 1
   */
  dim?: number;
  /**
   * Number of observations n.
   * @defaultValue 20
   */
  n?: number;
  /**
   * Known noise standard deviation σ of each coordinate of each observation.
   * @defaultValue 1
   */
  sigma?: number;
  /**
   * Prior standard deviation s0 of each coordinate of μ.
   * @defaultValue 1
   */
  priorSd?: number;
  /**
   * Prior mean m0, the same for every coordinate.
   * @defaultValue 0
   */
  priorMean?: number;
  /**
   * The mean the data are generated from (length d). When omitted it is drawn from the prior with
   * the same seed, so the data are a draw from the model's prior predictive.
   */
  trueMean?: ArrayLike<number>;
  /**
   * Seed of the generated data.
   * @defaultValue 0
   */
  seed?: number;
  /**
   * Observations to use instead of generating them: n × d row-major (n = data.length / dim).
   */
  data?: ArrayLike<number>;
}

/** The exact (Gaussian, isotropic) posterior of the gaussian-mean model. */
export interface GaussianMeanPosterior {
  /** Posterior mean of μ (length d). */
  readonly mean: Float64Array;
  /** Posterior standard deviation of each coordinate of μ (the posterior is N(mean, sd² I)). */
  readonly sd: number;
}

/**
 * The conjugate gaussian-mean model: y_i ~ N(μ, σ² I_d), i = 1…n, σ known, μ ~ N(m0 1, s0² I_d).
 * A {@link BayesModel} with gradients, a pointwise likelihood, the exact log evidence and the exact
 * posterior, used as a test bed for every evidence estimator.
 */
export interface GaussianMeanModel extends BayesModel {
  /** The observations, n × d row-major. */
  readonly data: Float64Array;
  /** Number of observations. */
  readonly n: number;
  /** Number of observations (= n): the length of `logLikelihoodPointwise`'s output, for cross-validation. */
  readonly nObservations: number;
  readonly sigma: number;
  readonly priorSd: number;
  readonly priorMean: number;
  /** The mean the data were generated from (NaN entries when `data` was given). */
  readonly trueMean: Float64Array;
  gradLogPrior(theta: Float64Array, grad: Float64Array): number;
  gradLogLikelihood(theta: Float64Array, grad: Float64Array): number;
  logLikelihoodPointwise(theta: Float64Array, out: Float64Array): void;
  /** log p(D) in closed form. */
  exactLogEvidence(): number;
  /** The exact posterior N(mean, sd² I). */
  posterior(): GaussianMeanPosterior;
  /** `count` independent draws from the exact posterior. */
  samplePosterior(rng: Rng, count: number): Float64Array[];
  /**
   * The same prior (σ, s0, m0) with the likelihood of only the listed observations (distinct indices
   * in [0, n), any order): the model cross-validated evidence needs (see `SubsettableModel`).
   */
  subset(observations: Int32Array): GaussianMeanModel;
}

function positive(value: number, name: string): void {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new OccamError(
      "invalid-argument",
      `gaussianMeanModel: ${name} must be a finite number > 0, got ${value}.`,
    );
  }
}

/**
 * Builds the gaussian-mean model, generating n observations from a seed (or taking `data`).
 *
 * The evidence factorises over coordinates: coordinate j of the data is N(m0 1, σ² I + s0² 1 1ᵀ),
 * so with r_i = y_ij − m0,
 * log p(y_·j) = −(n/2) log 2πσ² − ½ log(1 + n s0²/σ²) − [Σ r_i² − s0² (Σ r_i)² / (σ² + n s0²)] / 2σ².
 *
 * @example
 * const model = gaussianMeanModel({ dim: 10, n: 20, sigma: 1, priorSd: 1, seed: 3 });
 * model.exactLogEvidence();
 */
export function gaussianMeanModel(options: GaussianMeanOptions = {}): GaussianMeanModel {
  const { dim, sigma, priorSd, priorMean, n, data, trueMean } = resolveGaussianMeanOptions(options);
  const { ybar, scatter, sigma2, s02, logLikConst, logPriorConst, postSd, postMean, exact } =
    gaussianMeanClosedForms(dim, sigma, priorSd, priorMean, n, data);

  const checkTheta = (theta: Float64Array, where: string): void => {
    if (theta.length !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `gaussianMeanModel.${where}: θ has length ${theta.length}, expected ${dim}.`,
      );
    }
  };

  const model: GaussianMeanModel = {
    dim,
    names: Array.from({ length: dim }, (_, j) => `mu[${j}]`),
    data,
    n,
    nObservations: n,
    sigma,
    priorSd,
    priorMean,
    trueMean,
    logPrior(theta) {
      checkTheta(theta, "logPrior");
      let q = 0;
      for (let j = 0; j < dim; j++) q += (theta[j] - priorMean) ** 2;
      return logPriorConst - q / (2 * s02);
    },
    gradLogPrior(theta, grad) {
      checkTheta(theta, "gradLogPrior");
      let q = 0;
      for (let j = 0; j < dim; j++) {
        const r = theta[j] - priorMean;
        q += r * r;
        grad[j] = -r / s02;
      }
      return logPriorConst - q / (2 * s02);
    },
    logLikelihood(theta) {
      checkTheta(theta, "logLikelihood");
      let q = 0;
      for (let j = 0; j < dim; j++) q += (ybar[j] - theta[j]) ** 2;
      return logLikConst - (scatter + n * q) / (2 * sigma2);
    },
    gradLogLikelihood(theta, grad) {
      checkTheta(theta, "gradLogLikelihood");
      let q = 0;
      for (let j = 0; j < dim; j++) {
        const r = ybar[j] - theta[j];
        q += r * r;
        grad[j] = (n * r) / sigma2;
      }
      return logLikConst - (scatter + n * q) / (2 * sigma2);
    },
    logLikelihoodPointwise(theta, out) {
      checkTheta(theta, "logLikelihoodPointwise");
      if (out.length !== n) {
        throw new OccamError(
          "dimension-mismatch",
          `gaussianMeanModel.logLikelihoodPointwise: out has length ${out.length}, expected n = ${n}.`,
        );
      }
      const c = -0.5 * dim * (LOG_2PI + Math.log(sigma2));
      for (let i = 0; i < n; i++) {
        let q = 0;
        for (let j = 0; j < dim; j++) q += (data[i * dim + j] - theta[j]) ** 2;
        out[i] = c - q / (2 * sigma2);
      }
    },
    samplePrior(r) {
      const theta = new Float64Array(dim);
      for (let j = 0; j < dim; j++) theta[j] = priorMean + priorSd * r.normal();
      return theta;
    },
    exactLogEvidence() {
      return exact;
    },
    posterior() {
      return Object.freeze({ mean: Float64Array.from(postMean), sd: postSd });
    },
    samplePosterior(r, count) {
      if (!(Number.isInteger(count) && count >= 0)) {
        throw new OccamError(
          "invalid-argument",
          `gaussianMeanModel.samplePosterior: count must be an integer ≥ 0, got ${count}.`,
        );
      }
      const out: Float64Array[] = [];
      for (let t = 0; t < count; t++) {
        const theta = new Float64Array(dim);
        for (let j = 0; j < dim; j++) theta[j] = postMean[j] + postSd * r.normal();
        out.push(theta);
      }
      return out;
    },
    subset(observations) {
      const rows = checkSubsetIndices(observations, n, "gaussianMeanModel.subset");
      const sub = new Float64Array(rows.length * dim);
      for (let k = 0; k < rows.length; k++)
        sub.set(data.subarray(rows[k] * dim, (rows[k] + 1) * dim), k * dim);
      return gaussianMeanModel({ dim, sigma, priorSd, priorMean, data: sub });
    },
  };
  return defineModel(model) as GaussianMeanModel;
}
/** The checked options of {@link gaussianMeanModel} with its data, given or generated. */
interface GaussianMeanSettings {
  readonly dim: number;
  readonly sigma: number;
  readonly priorSd: number;
  readonly priorMean: number;
  readonly n: number;
  readonly data: Float64Array;
  /** The generating mean (NaN entries when the data were given). */
  readonly trueMean: Float64Array;
}

/**
 * Fills the defaults of {@link GaussianMeanOptions}, checks them (throwing an `OccamError`) and takes
 * the data, or draws the true mean (unless given) and then the n observations from the seed.
 */
function resolveGaussianMeanOptions(options: GaussianMeanOptions): GaussianMeanSettings {
  const dim = options.dim ?? 1;
  const sigma = options.sigma ?? 1;
  const priorSd = options.priorSd ?? 1;
  const priorMean = options.priorMean ?? 0;
  const seed = options.seed ?? 0;
  if (!(Number.isInteger(dim) && dim >= 1)) {
    throw new OccamError(
      "invalid-argument",
      `gaussianMeanModel: dim must be a positive integer, got ${dim}.`,
    );
  }
  positive(sigma, "sigma");
  positive(priorSd, "priorSd");
  if (!Number.isFinite(priorMean)) {
    throw new OccamError(
      "invalid-argument",
      `gaussianMeanModel: priorMean must be finite, got ${priorMean}.`,
    );
  }
  const rng = createRng(seed);

  let n: number;
  let data: Float64Array;
  const trueMean = new Float64Array(dim);
  if (options.data !== undefined) {
    if (options.trueMean !== undefined || options.n !== undefined) {
      throw new OccamError("invalid-argument", "gaussianMeanModel: with data, do not give n or trueMean.");
    }
    const given = options.data;
    if (given.length === 0 || given.length % dim !== 0) {
      throw new OccamError(
        "dimension-mismatch",
        `gaussianMeanModel: data has ${given.length} values, not a positive multiple of dim = ${dim} (n × d row-major).`,
      );
    }
    data = Float64Array.from(given);
    n = data.length / dim;
    for (let i = 0; i < data.length; i++) {
      if (!Number.isFinite(data[i])) {
        throw new OccamError("invalid-data", `gaussianMeanModel: data value ${i} is ${data[i]}.`);
      }
    }
    trueMean.fill(Number.NaN);
  } else {
    n = options.n ?? 20;
    if (!(Number.isInteger(n) && n >= 1)) {
      throw new OccamError("invalid-argument", `gaussianMeanModel: n must be a positive integer, got ${n}.`);
    }
    if (options.trueMean !== undefined) {
      if (options.trueMean.length !== dim) {
        throw new OccamError(
          "dimension-mismatch",
          `gaussianMeanModel: trueMean has length ${options.trueMean.length}, expected dim = ${dim}.`,
        );
      }
      for (let j = 0; j < dim; j++) {
        trueMean[j] = options.trueMean[j];
        if (!Number.isFinite(trueMean[j])) {
          throw new OccamError("invalid-argument", `gaussianMeanModel: trueMean[${j}] is ${trueMean[j]}.`);
        }
      }
    } else {
      for (let j = 0; j < dim; j++) trueMean[j] = priorMean + priorSd * rng.normal();
    }
    data = new Float64Array(n * dim);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < dim; j++) data[i * dim + j] = trueMean[j] + sigma * rng.normal();
    }
  }
  return { dim, sigma, priorSd, priorMean, n, data, trueMean };
}

/**
 * The sufficient statistics ȳ and S = Σ_i ‖y_i − ȳ‖², the constants of the densities, the exact
 * posterior N(postMean, postSd² I) and the exact log evidence.
 */
function gaussianMeanClosedForms(
  dim: number,
  sigma: number,
  priorSd: number,
  priorMean: number,
  n: number,
  data: Float64Array,
) {
  // Sufficient statistics: log L(μ) = −(nd/2) log 2πσ² − [S + n‖ȳ − μ‖²] / 2σ², S = Σ_i ‖y_i − ȳ‖².
  const ybar = new Float64Array(dim);
  for (let i = 0; i < n; i++) for (let j = 0; j < dim; j++) ybar[j] += data[i * dim + j];
  for (let j = 0; j < dim; j++) ybar[j] /= n;
  let scatter = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < dim; j++) scatter += (data[i * dim + j] - ybar[j]) ** 2;

  const sigma2 = sigma * sigma;
  const s02 = priorSd * priorSd;
  const logLikConst = -0.5 * n * dim * (LOG_2PI + Math.log(sigma2));
  const logPriorConst = -0.5 * dim * (LOG_2PI + Math.log(s02));
  const postPrecision = 1 / s02 + n / sigma2;
  const postVar = 1 / postPrecision;
  const postSd = Math.sqrt(postVar);
  const postMean = new Float64Array(dim);
  for (let j = 0; j < dim; j++) postMean[j] = postVar * (priorMean / s02 + (n * ybar[j]) / sigma2);

  let exact = 0;
  for (let j = 0; j < dim; j++) {
    let sr = 0;
    let srr = 0;
    for (let i = 0; i < n; i++) {
      const r = data[i * dim + j] - priorMean;
      sr += r;
      srr += r * r;
    }
    exact +=
      -0.5 * n * (LOG_2PI + Math.log(sigma2)) -
      0.5 * Math.log1p((n * s02) / sigma2) -
      (srr - (s02 * sr * sr) / (sigma2 + n * s02)) / (2 * sigma2);
  }
  return { ybar, scatter, sigma2, s02, logLikConst, logPriorConst, postSd, postMean, exact };
}
