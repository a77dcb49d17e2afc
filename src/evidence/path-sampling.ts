/**
 * Path sampling / thermodynamic integration (Gelman & Meng 1998; Fabricius thesis §5.3–5.5, seed 004):
 * log Z = ∫₀¹ E_β[log L] dβ along the geometric path p(θ) L(θ)^β (thesis eqs. 5.19–5.21, 5.29).
 */
import { OccamError } from "../errors.js";
import type { BayesModel } from "../model/model.js";
import {
  type PowerPosteriorOptions,
  type PowerPosteriorSample,
  resolvePowerPosteriorOptions,
  samplePowerPosteriors,
  temperatureLabel,
} from "./power-posterior.js";
import { type EvidenceResult, evidenceResult, meanAndSd, resolveRng, secondsSince } from "./result.js";
import { powerLadder, randomTemperatures, temperatureDensity, validateLadder } from "./schedule.js";

/** Quadrature rule of the ladder scheme. */
export type QuadratureRule = "trapezoid" | "simpson";

/** Options of {@link pathSampling}. */
export interface PathSamplingOptions extends PowerPosteriorOptions {
  /**
   * `"ladder"`: E_β[log L] estimated at each temperature of a fixed ladder and integrated by
   * quadrature. `"random"`: the thesis's scheme (eq. 5.23), temperatures drawn from
   * p(θ) = (1 − k) θ^−k, one short chain segment at each.
   * @defaultValue "ladder"
   */
  scheme?: "ladder" | "random";
  /**
   * Ladder scheme: the temperatures, from 0 to 1, strictly increasing.
   * @defaultValue powerLadder(32, 4)
   */
  ladder?: ArrayLike<number>;
  /**
   * Ladder scheme: the quadrature rule. "simpson" integrates the quadratic through each pair of
   * intervals (for any spacing; with an odd number of intervals the last one uses the quadratic
   * through the last three temperatures).
   * @defaultValue "simpson"
   */
  rule?: QuadratureRule;
  /**
   * Random scheme: the number N of random temperatures.
   * @defaultValue 1000 (as the thesis)
   */
  temperatures?: number;
  /**
   * Random scheme: the exponent k < 1 of the temperature density p(θ) = (1 − k) θ^−k.
   * @defaultValue 0.9 (the thesis's best among 0, 0.5, 0.9, 0.99)
   */
  k?: number;
}

/**
 * Weights of the nodes a < b < c for ∫_lo^hi of the quadratic interpolating them (Lagrange basis
 * integrated exactly; coordinates shifted to b to limit cancellation).
 */
function quadraticWeights(a: number, b: number, c: number, lo: number, hi: number): [number, number, number] {
  const A = a - b;
  const C = c - b;
  const L = lo - b;
  const H = hi - b;
  // ∫ (u − p)(u − q) du from L to H, with u = x − b.
  const integral = (p: number, q: number): number => {
    const f = (u: number) => (u * u * u) / 3 - ((p + q) * u * u) / 2 + p * q * u;
    return f(H) - f(L);
  };
  return [
    integral(0, C) / (A * (A - C)),
    integral(A, C) / ((0 - A) * (0 - C)),
    integral(A, 0) / (C * (C - A)),
  ];
}

/** Quadrature weights of `rule` on the nodes `x` (sorted increasing, at least 2). */
export function quadratureWeights(x: ArrayLike<number>, rule: QuadratureRule): Float64Array {
  const n = x.length;
  const w = new Float64Array(n);
  if (rule === "trapezoid" || n < 3) {
    for (let k = 0; k + 1 < n; k++) {
      const h = x[k + 1] - x[k];
      w[k] += h / 2;
      w[k + 1] += h / 2;
    }
    return w;
  }
  let k = 0;
  for (; k + 2 < n; k += 2) {
    const [wa, wb, wc] = quadraticWeights(x[k], x[k + 1], x[k + 2], x[k], x[k + 2]);
    w[k] += wa;
    w[k + 1] += wb;
    w[k + 2] += wc;
  }
  if (k + 1 < n) {
    // An odd number of intervals: the last one by the quadratic through the last three nodes.
    const [wa, wb, wc] = quadraticWeights(x[k - 1], x[k], x[k + 1], x[k], x[k + 1]);
    w[k - 1] += wa;
    w[k] += wb;
    w[k + 1] += wc;
  }
  return w;
}

function weightedSum(w: Float64Array, f: Float64Array, index?: number[]): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i] * f[index === undefined ? i : index[i]];
  return s;
}

/**
 * Evidence by path sampling (thermodynamic integration): log Z = ∫₀¹ E_β[log L(θ)] dβ, where the
 * integrand U = d/dβ log[p(θ) L(θ)^β] = log L(θ) (thesis eq. 5.21 on the geometric path 5.29, the
 * prior as reference system, z₀ = 1).
 *
 * **Ladder scheme (the default)**: E_β[log L] is estimated by the mean of log L over the draws at
 * each temperature of a fixed ladder (thesis eq. 5.22) and integrated by the trapezoid or (default)
 * Simpson rule. The standard error propagates each temperature's Monte Carlo standard error
 * sd/√ESS (ESS of the log-likelihood trace) through the quadrature weights: √(Σ w_k² MCSE_k²). The
 * quadrature's own (discretisation) error is not in it: it is estimated by the same rule on the half
 * ladder (every other temperature) and Richardson's factor, and reported in
 * `diagnostics.discretisationError` with the other rule's estimate.
 *
 * **Random scheme** (thesis eq. 5.23): N temperatures θ_i from p(θ) = (1 − k) θ^−k (eq. 5.31, with the
 * normalisation corrected from θ^−k/(1 − k)), sorted increasing, a short warm-started chain segment at
 * each (`warmupPerTemperature` 2 and `drawsPerTemperature` 1 by default: the thesis keeps the third
 * of three Gibbs sweeps), and log Z ≈ (1/N) Σ U_i / p(θ_i). Unbiased when each draw comes from its
 * power posterior; the standard error sd(U/p)/√N treats the terms as independent, which the
 * warm-started draws are not quite.
 *
 * Why the ladder is the default: the terms U/p(θ) of the random scheme carry the whole size of
 * log L (hundreds of nats for 20 observations) times 1/p(θ), so their variance is enormous: on the
 * 10-dimensional Gaussian-mean test model with k = 0.9 it is about 3.5 × 10⁵ nats² per term, a
 * standard error near 19 nats with the thesis's N = 1000, where a 33-temperature ladder with 1000
 * draws each reaches about 0.06 nats at a similar cost. Simpson is the default rule because on a
 * power ladder it removes the trapezoid's discretisation bias (−0.08 nats on that model, 32 rungs)
 * at no extra cost.
 *
 * Throws an `OccamError` when a log likelihood is −Infinity at a prior draw (E₀[log L] is then −∞:
 * use stepping-stone sampling), or NaN anywhere (naming the temperature).
 *
 * @example
 * const result = pathSampling(model, { rule: "simpson", drawsPerTemperature: 2000, seed: 1 });
 */
export function pathSampling(model: BayesModel, options: PathSamplingOptions = {}): EvidenceResult {
  const start = performance.now();
  const where = "pathSampling";
  const scheme = options.scheme ?? "ladder";
  if (scheme === "ladder") return ladderScheme(model, options, where, start);
  if (scheme === "random") return randomScheme(model, options, where, start);
  throw new OccamError(
    "invalid-argument",
    `${where}: scheme must be "ladder" or "random", got ${String(scheme)}.`,
  );
}

function meansAndErrors(
  sample: PowerPosteriorSample,
  where: string,
): { means: Float64Array; mcse: Float64Array } {
  const temps = sample.temperatures;
  const means = new Float64Array(temps.length);
  const mcse = new Float64Array(temps.length);
  for (let k = 0; k < temps.length; k++) {
    const ell = temps[k].logLikelihood;
    for (let i = 0; i < ell.length; i++) {
      if (ell[i] === Number.NEGATIVE_INFINITY) {
        throw new OccamError(
          "non-finite",
          `${where}: the log likelihood is −Infinity at draw ${i} at ${temperatureLabel(sample.betas, k)}, so E_β[log L] = −∞ there ` +
            "and thermodynamic integration is undefined (the prior puts mass where the likelihood is zero); use steppingStone instead.",
        );
      }
    }
    const { mean, sd } = meanAndSd(ell);
    means[k] = mean;
    const ess = temps[k].ess;
    mcse[k] = sd === 0 ? 0 : sd / Math.sqrt(ess);
  }
  return { means, mcse };
}

function ladderScheme(
  model: BayesModel,
  options: PathSamplingOptions,
  where: string,
  start: number,
): EvidenceResult {
  const rule = options.rule ?? "simpson";
  if (rule !== "trapezoid" && rule !== "simpson") {
    throw new OccamError(
      "invalid-argument",
      `${where}: rule must be "trapezoid" or "simpson", got ${String(rule)}.`,
    );
  }
  const ladder =
    options.ladder === undefined ? powerLadder(32, 4) : validateLadder(options.ladder, `${where}: ladder`);
  const resolved = resolvePowerPosteriorOptions(options, where, { minDraws: 2 });
  const sample = samplePowerPosteriors(model, ladder, options, where, resolved);
  const { means, mcse } = meansAndErrors(sample, where);
  for (let k = 0; k < mcse.length; k++) {
    if (!Number.isFinite(mcse[k])) {
      throw new OccamError(
        "invalid-argument",
        `${where}: the Monte Carlo error at ${temperatureLabel(ladder, k)} cannot be estimated (too few draws); use drawsPerTemperature ≥ 8.`,
      );
    }
  }
  const w = quadratureWeights(ladder, rule);
  const logZ = weightedSum(w, means);
  let variance = 0;
  for (let k = 0; k < w.length; k++) variance += (w[k] * mcse[k]) ** 2;

  // The same rule on the half ladder (every other temperature, keeping β = 1) for the discretisation error.
  const K = ladder.length - 1;
  const half: number[] = [];
  for (let k = 0; k <= K; k += 2) half.push(k);
  if (half[half.length - 1] !== K) half.push(K);
  const halfBetas = half.map((k) => ladder[k]);
  const coarse = weightedSum(quadratureWeights(halfBetas, rule), means, half);
  const order = rule === "simpson" && half.length >= 3 ? 4 : 2;
  const other = weightedSum(quadratureWeights(ladder, rule === "simpson" ? "trapezoid" : "simpson"), means);

  return evidenceResult({
    method: `path-sampling (${rule})`,
    logZ,
    stdErr: Math.sqrt(variance),
    nLikelihoodEvals: sample.nLikelihoodEvals,
    seconds: secondsSince(start),
    diagnostics: {
      scheme: "ladder",
      rule,
      kernel: sample.kernel,
      ladder: Array.from(ladder),
      drawsPerTemperature: resolved.drawsPerTemperature,
      meanLogLikelihood: Array.from(means),
      monteCarloErrors: Array.from(mcse),
      logLikelihoodEss: sample.temperatures.map((t) => t.ess),
      acceptanceRates: sample.temperatures.map((t) => t.acceptanceRate),
      halfLadderEstimate: coarse,
      discretisationError: Math.abs(logZ - coarse) / (2 ** order - 1),
      otherRuleEstimate: other,
    },
  });
}

function randomScheme(
  model: BayesModel,
  options: PathSamplingOptions,
  where: string,
  start: number,
): EvidenceResult {
  const n = options.temperatures ?? 1000;
  if (!(Number.isInteger(n) && n >= 2)) {
    throw new OccamError("invalid-argument", `${where}: temperatures must be an integer ≥ 2, got ${n}.`);
  }
  const k = options.k ?? 0.9;
  if (!(Number.isFinite(k) && k < 1)) {
    throw new OccamError("invalid-argument", `${where}: k must be a finite number < 1, got ${k}.`);
  }
  const resolved = resolvePowerPosteriorOptions(options, where, {
    drawsPerTemperature: 1,
    warmupPerTemperature: 2,
  });
  const rng = resolveRng(options, where);
  const [temperatureStream, samplingStream] = rng.split(2);
  const thetas = randomTemperatures(n, temperatureStream, k);
  const sample = samplePowerPosteriors(
    model,
    thetas,
    { ...options, seed: undefined, rng: samplingStream },
    where,
    resolved,
  );
  const terms = new Float64Array(n);
  const means = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const ell = sample.temperatures[i].logLikelihood;
    let s = 0;
    for (let t = 0; t < ell.length; t++) s += ell[t];
    means[i] = s / ell.length;
    const p = temperatureDensity(thetas[i], k);
    // θ = 0 (possible only by underflow) has p = ∞ and contributes U/p = 0.
    terms[i] = Number.isFinite(p) ? means[i] / p : 0;
    if (!Number.isFinite(terms[i])) {
      throw new OccamError(
        "non-finite",
        `${where}: the term U/p(θ) at θ = ${thetas[i]} is ${terms[i]}; the log likelihood there is not finite.`,
      );
    }
  }
  const { mean, sd } = meanAndSd(terms);
  // For comparison: the trapezoid rule over the sorted temperatures, E_θ[log L] held flat beyond them.
  let ordered = thetas[0] * means[0] + (1 - thetas[n - 1]) * means[n - 1];
  for (let i = 0; i + 1 < n; i++) ordered += ((thetas[i + 1] - thetas[i]) * (means[i] + means[i + 1])) / 2;
  return evidenceResult({
    method: "path-sampling (random temperatures)",
    logZ: mean,
    stdErr: sd / Math.sqrt(n),
    nLikelihoodEvals: sample.nLikelihoodEvals,
    seconds: secondsSince(start),
    diagnostics: {
      scheme: "random",
      k,
      temperatures: n,
      kernel: sample.kernel,
      drawsPerTemperature: resolved.drawsPerTemperature,
      warmupPerTemperature: resolved.warmupPerTemperature,
      termSd: sd,
      orderedTrapezoidEstimate: ordered,
    },
  });
}
