/**
 * How independent runs of a tempering estimator pool: their estimates weighted by their particles, the
 * χ² of their disagreement (the spread ratio and the Birge ratio that scale a pooled error), and
 * Welch's t of two starts' estimates.
 */
import { logSumExp } from "../../math/logspace.js";
import { chisquareQuantile, tQuantile } from "../../math/stdlib.js";
import { type IslandKind, studentFactor } from "./estimates.js";

/**
 * Pools independent runs, each weighted by w_r, its share of the particles (an island's variance falls
 * as 1/particles). Islands that each estimate Z without bias (`"product"`: smc, stepping-stone,
 * chaining's lower ends) pool on Z's scale: Ẑ = Σ_r w_r Ẑ_r, relative variance
 * Σ_r w_r² (Ẑ_r/Ẑ)² (s_r/f_r)²; islands that each estimate log Z (`"sum"`: path, chaining's geometric
 * bridges) on log Z's: log Ẑ = Σ_r w_r log Ẑ_r, variance Σ_r w_r² (s_r/f_r)²; s_r is each run's
 * standard error and f_r the {@link studentFactor} it carries, and the pooled
 * standard error is scaled by the Student factor of the Welch–Satterthwaite degrees of freedom. One
 * run is returned as it is; a standard error that is not finite makes the pooled one +∞.
 */
export function poolRuns(
  runs: readonly { particles: number; islands: number; logZ: number; stdErr: number }[],
  kind: IslandKind,
): PooledEstimate {
  if (runs.length === 1) return { logZ: runs[0].logZ, stdErr: runs[0].stdErr, degrees: runs[0].islands - 1 };
  const total = runs.reduce((n, r) => n + r.particles, 0);
  const logZ =
    kind === "sum"
      ? runs.reduce((sum, r) => sum + (r.particles / total) * r.logZ, 0)
      : logSumExp(runs.map((r) => Math.log(r.particles / total) + r.logZ));
  let variance = 0;
  let spread = 0;
  for (const run of runs) {
    if (kind === "product" && run.logZ === Number.NEGATIVE_INFINITY) continue; // Ẑ_r = 0 adds nothing
    const G = run.islands;
    const scale = kind === "sum" ? 1 : Math.exp(run.logZ - logZ);
    const part = ((run.particles / total) * scale * (run.stdErr / studentFactor(G - 1))) ** 2;
    variance += part;
    spread += part ** 2 / (G - 1);
  }
  const degrees = spread > 0 ? variance ** 2 / spread : runs[0].islands - 1;
  if (!Number.isFinite(variance)) return { logZ, stdErr: Number.POSITIVE_INFINITY, degrees };
  return { logZ, stdErr: Math.sqrt(variance) * studentFactor(degrees), degrees };
}

/** Pooled runs' log Ẑ, its standard error (with its Student factor), and that factor's degrees of freedom. */
export interface PooledEstimate {
  readonly logZ: number;
  readonly stdErr: number;
  readonly degrees: number;
}

/**
 * Welch's t of two pooled estimates, |log Ẑ_a − log Ẑ_b| / √(σ_a² + σ_b²) with σ each one's standard
 * error without its Student factor, when it is above the two-sided {@link DISAGREEMENT_QUANTILE} of
 * Student's t at the Welch–Satterthwaite degrees of freedom; undefined when they agree. A pilot's 8
 * islands leave its error 7 degrees of freedom, and so a bar of about 5 rather than the normal's 3.3:
 * on the 50-dimensional box one of smc's 20 pilots was 0.50 nats low at a standard error of 0.154,
 * against runs from the reference that were right, and the normal's bar cost a full run from the
 * prior to settle it; a reference wrong by design (a normal spanning two separated modes) stood at
 * Birge ratios of 10–19, which Welch's t, with the pilot's smaller Student factor, only raises.
 */
export function welchDisagreement(a: PooledEstimate, b: PooledEstimate): number | undefined {
  const [va, vb] = [a, b].map((e) => (e.stdErr / studentFactor(e.degrees)) ** 2);
  const t = Math.abs(a.logZ - b.logZ) / Math.sqrt(va + vb);
  const degrees = (va + vb) ** 2 / (va ** 2 / a.degrees + vb ** 2 / b.degrees);
  if (!(Number.isFinite(t) && degrees > 0)) return undefined;
  return t > tQuantile(1 - (1 - DISAGREEMENT_QUANTILE) / 2, degrees) ? t : undefined;
}

/** Above this quantile of χ² with k − 1 degrees of freedom, k pooled runs disagree beyond their standard errors. */
const DISAGREEMENT_QUANTILE = 0.999;

/**
 * χ² = Σ_r (log Ẑ_r − log Ẑ)² / σ_r² of the runs with finite estimates about log Ẑ, σ_r each run's
 * standard error without its Student factor, and its degrees of freedom (undefined for fewer than two
 * such runs).
 */
function runsChiSquare(
  runs: readonly { islands: number; logZ: number; stdErr: number }[],
  logZ: number,
): { chiSquare: number; degrees: number } | undefined {
  const finite = runs.filter((r) => Number.isFinite(r.logZ) && Number.isFinite(r.stdErr) && r.stdErr > 0);
  if (finite.length < 2 || !Number.isFinite(logZ)) return undefined;
  let chiSquare = 0;
  for (const run of finite)
    chiSquare += ((run.logZ - logZ) / (run.stdErr / studentFactor(run.islands - 1))) ** 2;
  return { chiSquare, degrees: finite.length - 1 };
}

/**
 * The spread ratio (Birge ratio) √(χ²/(k − 1)) of k runs about their pooled log Ẑ (see
 * {@link runsChiSquare}): about 1 when the standard errors are the right size. Undefined for fewer
 * than two runs with finite estimates.
 */
export function spreadRatio(
  runs: readonly { islands: number; logZ: number; stdErr: number }[],
  logZ: number,
): number | undefined {
  const spread = runsChiSquare(runs, logZ);
  return spread === undefined ? undefined : Math.sqrt(spread.chiSquare / spread.degrees);
}

/**
 * The {@link spreadRatio} of k pooled runs when they disagree: χ² above the 0.999 quantile of χ²_{k−1}
 * (a guard against gross disagreement, such as a run that missed a mode: the delta method's errors
 * from 32 islands have heavier tails than a Gaussian's, and on lognormal islands of sd 0.8 two runs
 * with calibrated errors were called disagreeing 0.8 % of the time, four 1.7 %, eight 2.2 %; at the
 * 0.99 quantile two runs 2.8 %).
 * Independent runs that disagree beyond their errors share an error the spread of each run's islands
 * cannot see (the temperatures and tuning its islands share); scaling the standard error by the ratio
 * makes it cover their disagreement, as the Particle Data Group scales a weighted mean's. Undefined
 * when they agree, or for fewer than two runs with finite estimates.
 */
export function birgeRatioOf(
  runs: readonly { islands: number; logZ: number; stdErr: number }[],
  logZ: number,
): number | undefined {
  const spread = runsChiSquare(runs, logZ);
  if (spread === undefined) return undefined;
  const { chiSquare, degrees } = spread;
  return chiSquare > chisquareQuantile(DISAGREEMENT_QUANTILE, degrees)
    ? Math.sqrt(chiSquare / degrees)
    : undefined;
}
