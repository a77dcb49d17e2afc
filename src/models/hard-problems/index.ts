/**
 * The hard-problem suite: evidence problems from the nested-sampling and evidence literature with
 * exact, quadrature or long-run references, for calibrating occam's estimators on multimodal,
 * curved, correlated, bounded and real-data posteriors. `hardProblem(name)` builds one with the
 * suite's settings; the per-family factories take other settings.
 */
import { OccamError } from "../../errors.js";
import { correlatedGaussianProblem } from "./correlated-gaussian.js";
import { eggboxProblem } from "./eggbox.js";
import { funnelProblem } from "./funnel.js";
import { gaussianMixtureProblem } from "./gaussian-mixture.js";
import { gaussianShellsProblem } from "./gaussian-shells.js";
import { logisticPimaProblem } from "./logistic-regression.js";
import type { EvidenceProblem } from "./problem.js";
import { rosenbrockProblem } from "./rosenbrock.js";

export {
  type CorrelatedGaussianOptions,
  correlatedGaussianProblem,
  correlatedMean,
} from "./correlated-gaussian.js";
export { EGGBOX_PUBLISHED_LOG_Z, type EggboxOptions, eggboxProblem } from "./eggbox.js";
export { type FunnelOptions, funnelProblem } from "./funnel.js";
export {
  type GaussianMixtureOptions,
  gaussianMixtureProblem,
  type MixtureComponent,
} from "./gaussian-mixture.js";
export {
  type GaussianShellsOptions,
  gaussianShellsProblem,
  SHELLS_PUBLISHED_LOG_Z,
} from "./gaussian-shells.js";
export {
  type LogisticPimaOptions,
  logisticPimaProblem,
  PIMA_PRIOR_SD,
  PIMA_REFERENCE,
  type PimaDesign,
  pimaDesign,
} from "./logistic-regression.js";
export type { EvidenceProblem } from "./problem.js";
export { type RosenbrockOptions, rosenbrockProblem } from "./rosenbrock.js";

/** The names of the suite's problems. */
export type HardProblemName =
  | "eggbox"
  | "shells-d2"
  | "shells-d5"
  | "shells-d10"
  | "correlated-box-d20"
  | "correlated-box-d50"
  | "correlated-normal-d20"
  | "correlated-normal-d50"
  | "mixture-d5"
  | "mixture-d10"
  | "funnel-d10"
  | "rosenbrock"
  | "logistic-pima";

/** A problem of the suite, built with the suite's settings. */
export interface HardProblem extends EvidenceProblem {
  readonly name: HardProblemName;
}

const BUILDERS: Readonly<Record<HardProblemName, () => EvidenceProblem>> = Object.freeze({
  eggbox: () => eggboxProblem(),
  "shells-d2": () => gaussianShellsProblem({ dim: 2 }),
  "shells-d5": () => gaussianShellsProblem({ dim: 5 }),
  "shells-d10": () => gaussianShellsProblem({ dim: 10 }),
  "correlated-box-d20": () => correlatedGaussianProblem({ dim: 20, prior: "box" }),
  "correlated-box-d50": () => correlatedGaussianProblem({ dim: 50, prior: "box" }),
  "correlated-normal-d20": () => correlatedGaussianProblem({ dim: 20, prior: "normal" }),
  "correlated-normal-d50": () => correlatedGaussianProblem({ dim: 50, prior: "normal" }),
  "mixture-d5": () => gaussianMixtureProblem({ dim: 5 }),
  "mixture-d10": () => gaussianMixtureProblem({ dim: 10 }),
  "funnel-d10": () => funnelProblem({ dim: 10 }),
  rosenbrock: () => rosenbrockProblem(),
  "logistic-pima": () => logisticPimaProblem(),
});

/** Every problem of the suite, in a fixed order (easy to hard within each family). */
export const HARD_PROBLEM_NAMES: readonly HardProblemName[] = Object.freeze(
  Object.keys(BUILDERS) as HardProblemName[],
);

/**
 * Builds one problem of the suite (a fresh model each call; a few milliseconds). Throws an
 * `invalid-argument` OccamError for an unknown name, listing the names.
 *
 * @example
 * for (const name of HARD_PROBLEM_NAMES) {
 *   const { model, logZ, logZError } = hardProblem(name);
 * }
 */
export function hardProblem(name: HardProblemName): HardProblem {
  const build = Object.hasOwn(BUILDERS, name) ? BUILDERS[name] : undefined;
  if (build === undefined) {
    throw new OccamError(
      "invalid-argument",
      `Unknown hard problem ${JSON.stringify(name)}: the problems are ${HARD_PROBLEM_NAMES.join(", ")}.`,
    );
  }
  const problem = build();
  if (problem.name !== name) {
    throw new OccamError(
      "internal",
      `hardProblem: building "${name}" gave a problem named "${problem.name}".`,
    );
  }
  return problem as HardProblem;
}
