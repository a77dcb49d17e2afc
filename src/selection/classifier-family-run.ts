/**
 * One classifier family's run in a comparison of families (see `compareClassifierFamilies`): its
 * evidence, cross-check, posterior draws given all training rows, predictions and leave-one-out
 * densities, before the families are weighed against each other.
 */
import { OccamError } from "../errors.js";
import { crossValidatedEvidence, isSubsettable } from "../evidence/cross-validated.js";
import { estimateEvidence } from "../evidence/estimate.js";
import { type PosteriorSample, samplePosterior } from "../evidence/posterior-sampling.js";
import type { EvidenceEstimate } from "../evidence/result.js";
import { temperedSmcDraws } from "../evidence/tempered-smc.js";
import type { Draws } from "../model/draws.js";
import { CHAIN_RULE } from "../models/classifiers/families.js";
import {
  type ClassifierFamilyName,
  type ClassifierModel,
  classificationScores,
  leaveOneOut,
  logLossMonteCarloError,
  type PosteriorPredictive,
  posteriorPredictive,
} from "../models/classifiers/index.js";
import type { ClassificationData } from "../models/mixture-classifier/data.js";
import type { Rng } from "../random/rng.js";
import type { ClassifierFamilyResult, EstimateSummary } from "./classifier-families.js";
import type { ClassifierComparisonSettings, CompareClassifierFamiliesOptions } from "./classifier-options.js";

/** An estimate as reported; `method` and `warnings` replace the estimate's own when given. */
function summarise(r: EvidenceEstimate, method = r.method, warnings = r.warnings): EstimateSummary {
  return Object.freeze({ method, logZ: r.logZ, stdErr: r.stdErr, reliable: r.reliable, warnings });
}

/** Everything computed for one family before the families are weighed against each other. */
export interface FamilyRun {
  result: Omit<
    ClassifierFamilyResult,
    "included" | "probability" | "probabilityStdErr" | "probabilityInterval" | "stackingWeight"
  >;
  predictive: PosteriorPredictive | null;
  loo: Float64Array;
}

/**
 * One family's run on the comparison's folds: its posterior given all rows, its chain-rule evidence
 * (or, with `tempered`, tempered SMC's where the chain rule fails), the cross-check, Everson's
 * product if asked, predictions and leave-one-out densities (see `compareClassifierFamilies`).
 */
export function runFamily(
  name: ClassifierFamilyName,
  model: ClassifierModel,
  partition: readonly Int32Array[],
  test: ClassificationData | null,
  o: ClassifierComparisonSettings,
  options: CompareClassifierFamiliesOptions,
  rng: Rng,
): FamilyRun {
  const start = performance.now();
  const [cvRng, postRng, checkRng, eversonRng] = rng.split(4);
  const say = (step: string) => options.onProgress?.(`${name}: ${step}`);
  // The families' posteriors are sampled by static HMC tuned for each (its trajectory length and
  // target acceptance), which NUTS did not match there: on a 2-unit network ESS 77 against 368 at
  // twice the cost, and on a 2-kernel mixture 0.5 % of trajectories divergent; at target acceptance
  // 0.95 NUTS was reliable but cost 3–6 times as many gradients.
  const kernel: "hmc" | "auto" =
    typeof model.gradLogLikelihood === "function" && model.powerPosteriorKernel === undefined
      ? "hmc"
      : "auto";
  const settings = { partition, draws: o.draws, chains: o.chains, warmup: o.warmup, sampler: kernel };
  say("posterior draws given all training rows");
  const sample = samplePosterior(model, {
    kernel,
    rng: postRng,
    chains: o.chains,
    warmup: o.warmup,
    draws: Math.ceil(o.draws / o.chains),
    starts: "prior",
  });
  const cv = (form: "chain-rule" | "k-fold", stream: Rng): EvidenceEstimate => {
    if (model.chainRuleEvidence !== undefined)
      return model.chainRuleEvidence({ ...settings, rng: stream }, form);
    if (!isSubsettable(model))
      throw new OccamError("internal", `${name}: the family has no chain-rule evidence.`);
    // The chain rule's factors bridge successive fold posteriors, the last being the posterior given
    // all rows drawn above: a factor averaged over the previous posterior alone rests on few draws
    // when a fold moves the posterior far (the second fold doubles the data).
    return crossValidatedEvidence(model, {
      form,
      ...settings,
      starts: "prior",
      rng: stream,
      ...(form === "chain-rule" ? { terms: "bridge" as const, finalSample: sample } : {}),
    });
  };
  const bridgeOnChains = (): EvidenceEstimate =>
    model.exactChainRule !== undefined
      ? model.exactChainRule(partition, "chain-rule")
      : estimateEvidence(model, { method: "bridge", sample, seed: Math.floor(checkRng.uniform() * 2 ** 31) });
  const weighed = weighFamily(model, sample, cv, bridgeOnChains, o, options, cvRng, checkRng, say);
  const { evidence, crossCheck, chainRule, posterior } = weighed;
  let everson: EvidenceEstimate | null = null;
  if (options.everson ?? false) {
    say("Everson's G-fold product");
    everson = cv("k-fold", eversonRng);
  }
  say("predictions");
  const predictive =
    test === null ? null : posteriorPredictive(model, posterior.draws, test.X, test.n, test.labels);
  const loo = leaveOneOut(model, posterior.draws);
  const scores =
    predictive === null || test === null
      ? null
      : {
          ...classificationScores(predictive.probabilities, test.labels, model.classes),
          logLossMcse: logLossMonteCarloError([{ weight: 1, predictive }]),
        };
  const z =
    crossCheck === null
      ? null
      : (evidence.logZ - crossCheck.logZ) / Math.max(Math.hypot(evidence.stdErr, crossCheck.stdErr), 1e-12);
  return {
    predictive,
    loo: loo.logDensity,
    result: {
      name,
      summary: model.summary,
      dim: model.dim,
      evidence,
      crossCheck:
        crossCheck === null
          ? null
          : summarise(crossCheck, crossCheck === chainRule ? CHAIN_RULE : crossCheck.method),
      crossCheckZ: z,
      everson: everson === null ? null : summarise(everson),
      posterior: Object.freeze({
        reliable: posterior.reliable,
        maxRhat: sample.maxRhat,
        minEss: sample.minEss,
        warnings: Object.freeze(posterior.warnings),
      }),
      loo: Object.freeze({ elpd: loo.elpd, elpdStdErr: loo.elpdStdErr, highParetoK: loo.highParetoK }),
      test: scores === null ? null : Object.freeze(scores),
      testProbabilities: predictive?.probabilities ?? null,
      seconds: (performance.now() - start) / 1000,
    },
  };
}

/**
 * HMC's target acceptance in a family's tempered runs, where the family asks no higher: the networks'
 * posteriors made a run at 0.8 diverge on just over the 0.1 % of trajectories allowed (iris's
 * network, second split: 61–83 of 57 000–73 000, three pairs of runs in four flagged), and at 0.9
 * on 2–11, with estimates that agreed with those at 0.8 within their errors.
 */
const TEMPERED_HMC_TARGET_ACCEPT = 0.9;

/**
 * Tempered SMC on all training rows, for a family whose chain rule or chains fail their checks: its
 * evidence of the labels and its final particles as posterior draws. Two runs, 32 particles to an
 * island, their spread counted beside their islands': on the networks' posteriors one run's islands,
 * which share its temperatures and step sizes, spread less than independent runs do.
 */
function temperedPosterior(
  model: ClassifierModel,
  particles: number,
  rng: Rng,
  say: (step: string) => void,
): { result: EvidenceEstimate; draws: Draws } {
  say(`tempered SMC on all training rows (two runs of ${particles} particles)`);
  return temperedSmcDraws(model, {
    rng,
    particles,
    islands: Math.floor(particles / 32),
    targetStdErr: "none",
    countRunSpread: true,
    hmcTargetAccept: Math.max(model.hmcTargetAccept ?? 0, TEMPERED_HMC_TARGET_ACCEPT),
  });
}

/** What {@link weighFamily} decides: the evidence a family is weighed by, its cross-check, its posterior draws. */
interface FamilyWeight {
  readonly evidence: EstimateSummary;
  readonly crossCheck: EvidenceEstimate | null;
  /** The chain rule's estimate, when it was run (the evidence or the cross-check). */
  readonly chainRule: EvidenceEstimate | null;
  readonly posterior: { draws: Draws; reliable: boolean; warnings: string[] };
}

/**
 * Which evidence weighs a family and which posterior draws stand for it, from its chains given all
 * rows (`sample`): the chain rule (`cv`) when the chains pass their checks, tempered SMC where the chain
 * rule or the chains fail and `o.tempered` asks for it, else bridge sampling on the chains, flagged.
 */
function weighFamily(
  model: ClassifierModel,
  sample: PosteriorSample,
  cv: (form: "chain-rule" | "k-fold", stream: Rng) => EvidenceEstimate,
  bridgeOnChains: () => EvidenceEstimate,
  o: ClassifierComparisonSettings,
  options: CompareClassifierFamiliesOptions,
  cvRng: Rng,
  checkRng: Rng,
  say: (step: string) => void,
): FamilyWeight {
  const chainsFailed = sample.unreliable.length > 0;
  // The chain rule's last posterior is `sample`, so chains that fail their checks fail it too: it is
  // then not run (its other G − 1 posteriors were four fifths of a family's time, spent on a number
  // that could not be used), and the family is left out unless a tempered run passes. pknn computes its
  // own chain rule (`chainRuleEvidence`), which does not rest on `sample`.
  const skipChainRule = chainsFailed && model.chainRuleEvidence === undefined;
  if (!skipChainRule) say("chain-rule evidence");
  const chainRule = skipChainRule ? null : cv("chain-rule", cvRng);
  // pknn is never tempered: its likelihood is a pseudo-likelihood, whose tempered "evidence" is not a
  // probability of the labels.
  const tempered =
    o.tempered && chainRule?.reliable !== true && model.chainRuleEvidence === undefined
      ? temperedPosterior(model, o.temperedParticles, checkRng, say)
      : null;
  const passed = tempered?.result.reliable === true ? tempered : null;
  // Where the chain rule failed and the tempered run passed, the family is weighed by the tempered
  // evidence (the chain rule its cross-check), and where the chains failed too, its particles make the
  // predictions. Where the chain rule was not run and no tempered run passed, the evidence shown is
  // bridge sampling's on the failed chains, unreliable as they are, and there is no cross-check but a
  // failed tempered run.
  const skipped = `the chain rule was not run: it rests on the posterior chains given all training rows, which failed their checks (${sample.unreliable.join(" ")})`;
  let evidence: EstimateSummary;
  let crossCheck: EvidenceEstimate | null = tempered === null ? null : passed ? chainRule : tempered.result;
  if (passed) {
    evidence = summarise(passed.result, passed.result.method, [
      `weighed by tempered SMC on all training rows (two runs of ${o.temperedParticles} particles), as ${chainRule === null ? skipped : `the chain rule failed its checks: ${chainRule.warnings.join(" ")}`}`,
      ...passed.result.warnings,
    ]);
  } else if (chainRule !== null) {
    evidence = summarise(chainRule, CHAIN_RULE);
    if (crossCheck === null && (options.crossCheck ?? true)) {
      say("cross-check");
      crossCheck = bridgeOnChains();
    }
  } else {
    say("bridge sampling on the chains given all training rows");
    const bridge = bridgeOnChains();
    evidence = summarise(bridge, bridge.method, [skipped, ...bridge.warnings]);
  }
  const posterior =
    passed && chainsFailed
      ? {
          draws: passed.draws,
          reliable: true,
          warnings: [
            `posterior draws given all training rows from the last tempered run's particles, as the HMC chains failed their checks: ${sample.unreliable.join(" ")}`,
            ...sample.warnings,
          ],
        }
      : {
          draws: sample.draws,
          reliable: !chainsFailed,
          warnings: [
            ...sample.unreliable,
            ...sample.warnings,
            ...(tempered !== null && !passed
              ? [
                  `tempered SMC on all training rows failed its checks too: ${tempered.result.warnings.join(" ")}`,
                ]
              : []),
          ],
        };
  return { evidence, crossCheck, chainRule, posterior };
}
