import { OccamError } from "../errors.js";
import { Draws } from "../model/draws.js";
import type { Rng } from "../random/rng.js";
import { createRng } from "../random/rng.js";
import type { Kernel, PositionState, StepInfo } from "./kernel.js";
import { isAdaptive } from "./kernel.js";

/** Where a run is, reported to {@link RunChainOptions.onProgress}. */
export interface Progress {
  /** Chain index, from 0. */
  chain: number;
  /** Iterations of this chain done so far (warm-up and sampling), from 1 to `total`. */
  iteration: number;
  /** Iterations this chain will run: warmup + draws × thin. */
  total: number;
  /** Phase of the iteration just done. */
  phase: "warmup" | "sampling";
}

/** Where a chain starts: one point for every chain, one point per chain, or a function of the chain's stream. */
export type InitialPoints =
  | Float64Array
  | readonly Float64Array[]
  | ((rng: Rng, chain: number) => Float64Array);

/** Options of {@link runChain}. */
export interface RunChainOptions {
  /** Kept draws per chain (after thinning). */
  draws: number;
  /**
   * Iterations run and discarded before the kept draws; an `AdaptiveKernel` tunes itself during them.
   * @defaultValue 1000
   */
  warmup?: number;
  /**
   * Keep every thin-th iteration after warm-up (the chain runs draws × thin sampling iterations).
   * @defaultValue 1
   */
  thin?: number;
  /**
   * Number of chains, run one after another, each from its own stream `rng.split(chains)[c]`, so the
   * result does not depend on how chains are scheduled.
   * @defaultValue 1
   */
  chains?: number;
  /** Seed of the run; give `seed` or `rng`, not both. */
  seed?: number;
  /** Generator of the run (split into one stream per chain); give `seed` or `rng`, not both. */
  rng?: Rng;
  /**
   * Starting points: one Float64Array for every chain, an array with one per chain, or a function
   * called with the chain's own stream (before its first step) and the chain index.
   */
  initial: InitialPoints;
  /** One name per parameter. @defaultValue ["theta[0]", …] */
  names?: readonly string[];
  /** Called at most about 100 times per chain, and after the last iteration of each chain. */
  onProgress?: (p: Progress) => void;
  /**
   * Checked before every iteration; once aborted, `runChain` throws an `OccamError` with code
   * `"aborted"`. `runChain` is synchronous, so the signal must be aborted from code it calls (for
   * example `onProgress`); timers such as `AbortSignal.timeout` cannot fire while it runs.
   */
  signal?: AbortSignal;
}

interface ResolvedOptions {
  draws: number;
  warmup: number;
  thin: number;
  chains: number;
  rng: Rng;
  initial: InitialPoints;
  names: readonly string[] | undefined;
  onProgress: ((p: Progress) => void) | undefined;
  signal: AbortSignal | undefined;
}

function positiveInteger(value: number, name: string, min: number): void {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new OccamError(
      "invalid-argument",
      `runChain: ${name} must be an integer of at least ${min}, got ${value}.`,
    );
  }
}

/** Fills the defaults of {@link RunChainOptions} and checks every field at once. */
function resolveOptions(options: RunChainOptions): ResolvedOptions {
  if (options === null || typeof options !== "object") {
    throw new OccamError(
      "invalid-argument",
      "runChain: options must be an object with at least draws, initial and seed (or rng).",
    );
  }
  const draws = options.draws;
  const warmup = options.warmup ?? 1000;
  const thin = options.thin ?? 1;
  const chains = options.chains ?? 1;
  positiveInteger(draws, "draws", 1);
  positiveInteger(warmup, "warmup", 0);
  positiveInteger(thin, "thin", 1);
  positiveInteger(chains, "chains", 1);
  if (options.seed !== undefined && options.rng !== undefined) {
    throw new OccamError("invalid-argument", "runChain: give either seed or rng, not both.");
  }
  if (options.seed === undefined && options.rng === undefined) {
    throw new OccamError(
      "invalid-argument",
      "runChain: give a seed (an integer in [0, 2^32 − 1]) or an rng, so that the run is reproducible.",
    );
  }
  const rng = options.rng ?? createRng(options.seed as number);
  const initial = options.initial;
  if (Array.isArray(initial) && initial.length !== chains) {
    throw new OccamError(
      "dimension-mismatch",
      `runChain: initial has ${initial.length} starting points but chains is ${chains}; give one per chain, one for all, or a function.`,
    );
  }
  if (!(initial instanceof Float64Array || Array.isArray(initial) || typeof initial === "function")) {
    throw new OccamError(
      "invalid-argument",
      "runChain: initial must be a Float64Array, an array of Float64Array (one per chain), or a function (rng, chain) => Float64Array.",
    );
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw new OccamError("invalid-argument", "runChain: onProgress must be a function.");
  }
  return {
    draws,
    warmup,
    thin,
    chains,
    rng,
    initial,
    names: options.names,
    onProgress: options.onProgress,
    signal: options.signal,
  };
}

function startingPoint(initial: InitialPoints, rng: Rng, chain: number): Float64Array {
  const x =
    typeof initial === "function"
      ? initial(rng, chain)
      : initial instanceof Float64Array
        ? initial
        : (initial as readonly Float64Array[])[chain];
  if (!(x instanceof Float64Array)) {
    throw new OccamError(
      "invalid-argument",
      `runChain: the starting point of chain ${chain} must be a Float64Array.`,
    );
  }
  return x;
}

function aborted(chain: number, iteration: number, total: number): OccamError {
  return new OccamError(
    "aborted",
    `runChain was aborted in chain ${chain} after ${iteration} of ${total} iterations.`,
  );
}

/**
 * Runs a kernel: for each chain, `kernel.init(start)`, `warmup` steps (calling `adapt` after each for an
 * adaptive kernel, then `endWarmup` once), then draws × thin steps keeping every thin-th state. Returns
 * the kept positions and log densities with per-chain {@link ChainStats}: the acceptance rate is the mean
 * of `info.acceptProbability` over the sampling steps (a lower-variance estimate than the accepted
 * fraction), divergences count sampling steps with `info.divergent`, and evaluations sum
 * `info.evaluations` (the evaluation `init` makes is not counted). The same seed gives bit-identical draws.
 *
 * Pass a factory `(chain) => kernel` when chains > 1 and the kernel adapts, so that each chain tunes its own.
 * Throws an `OccamError`: `non-finite` when a start is non-finite or has a non-finite log density, or a
 * state's log density (or a kept position) becomes non-finite; `dimension-mismatch` when starting points
 * differ in length from each other, from `names` or from the kernel's position; `aborted` on `signal`.
 *
 * @example
 * const draws = runChain((c) => buildHmcKernel({ target, stepSize: 0.1 }), {
 *   draws: 1000, warmup: 500, chains: 4, seed: 1, initial: (rng) => model.samplePrior(rng),
 * });
 */
export function runChain<S extends PositionState, I extends StepInfo>(
  kernel: Kernel<S, I> | ((chain: number) => Kernel<S, I>),
  options: RunChainOptions,
): Draws {
  const opts = resolveOptions(options);
  const { draws: nDraws, warmup, thin, chains: nChains, initial, onProgress, signal } = opts;
  const factory = typeof kernel === "function" ? kernel : undefined;
  if (factory === undefined) {
    if (
      kernel === null ||
      typeof kernel !== "object" ||
      typeof kernel.init !== "function" ||
      typeof kernel.step !== "function"
    ) {
      throw new OccamError(
        "invalid-argument",
        "runChain: kernel must have init and step methods, or be a function (chain) => kernel.",
      );
    }
    if (nChains > 1 && isAdaptive(kernel)) {
      throw new OccamError(
        "invalid-argument",
        "runChain: this kernel adapts during warm-up, so one instance cannot serve several chains; pass a factory (chain) => kernel.",
      );
    }
  }
  const streams = opts.rng.split(nChains);
  const total = warmup + nDraws * thin;
  const progressEvery = Math.max(1, Math.ceil(total / 100));
  let out: Draws | undefined;
  let dim = -1;

  for (let c = 0; c < nChains; c++) {
    if (signal?.aborted) throw aborted(c, 0, total);
    const rng = streams[c];
    const k = factory ? factory(c) : (kernel as Kernel<S, I>);
    if (k === null || typeof k !== "object" || typeof k.init !== "function" || typeof k.step !== "function") {
      throw new OccamError(
        "invalid-argument",
        `runChain: the kernel factory returned no kernel for chain ${c}.`,
      );
    }
    const start = startingPoint(initial, rng, c);
    if (out === undefined) {
      dim = start.length;
      if (dim < 1) throw new OccamError("invalid-argument", "runChain: the starting point is empty.");
      const kernelDim = (k as { dim?: unknown }).dim;
      if (typeof kernelDim === "number" && kernelDim !== dim) {
        throw new OccamError(
          "dimension-mismatch",
          `runChain: the starting point has length ${dim} but the kernel's dim is ${kernelDim}.`,
        );
      }
      out = new Draws({ dim, nChains, nDraws, names: opts.names });
    } else if (start.length !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `runChain: the starting point of chain ${c} has length ${start.length} but chain 0's has ${dim}.`,
      );
    }
    for (let j = 0; j < dim; j++) {
      if (!Number.isFinite(start[j])) {
        throw new OccamError(
          "non-finite",
          `runChain: coordinate ${j} of the starting point of chain ${c} is ${start[j]}; start at finite values.`,
        );
      }
    }
    let state = k.init(start);
    if (state.position.length !== dim) {
      throw new OccamError(
        "dimension-mismatch",
        `runChain: the kernel's state has ${state.position.length} coordinates but the starting point has ${dim}; check the kernel's target dimension.`,
      );
    }
    if (!Number.isFinite(state.logDensity)) {
      throw new OccamError(
        "non-finite",
        `runChain: the log density at the starting point of chain ${c} is ${state.logDensity}; start where the target density is positive and finite (inside the prior's support).`,
      );
    }

    const adaptive = isAdaptive(k);
    let iteration = 0;
    let warmupEvaluations = 0;
    for (let i = 0; i < warmup; i++) {
      if (signal?.aborted) throw aborted(c, iteration, total);
      const result = k.step(rng, state);
      state = result.state;
      if (adaptive) k.adapt(state, result.info, i, warmup);
      warmupEvaluations += result.info.evaluations;
      if (!Number.isFinite(state.logDensity)) throw nonFiniteState(state.logDensity, c, "warm-up", i);
      iteration++;
      if (onProgress && (iteration % progressEvery === 0 || iteration === total)) {
        onProgress({ chain: c, iteration, total, phase: "warmup" });
      }
    }
    if (adaptive) k.endWarmup();

    const values = out.values;
    const logDensity = out.logDensity;
    let acceptSum = 0;
    let divergences = 0;
    let evaluations = 0;
    let treeDepthLimited: number | undefined;
    for (let t = 0; t < nDraws; t++) {
      for (let s = 0; s < thin; s++) {
        if (signal?.aborted) throw aborted(c, iteration, total);
        const result = k.step(rng, state);
        state = result.state;
        const info = result.info;
        acceptSum += info.acceptProbability;
        if (info.divergent === true) divergences++;
        if (info.treeDepthLimited !== undefined)
          treeDepthLimited = (treeDepthLimited ?? 0) + (info.treeDepthLimited ? 1 : 0);
        evaluations += info.evaluations;
        if (!Number.isFinite(state.logDensity))
          throw nonFiniteState(state.logDensity, c, "sampling", t * thin + s);
        iteration++;
        if (onProgress && (iteration % progressEvery === 0 || iteration === total)) {
          onProgress({ chain: c, iteration, total, phase: "sampling" });
        }
      }
      const position = state.position;
      const row = (c * nDraws + t) * dim;
      for (let j = 0; j < dim; j++) {
        const v = position[j];
        if (!Number.isFinite(v)) {
          throw new OccamError(
            "non-finite",
            `runChain: coordinate ${j} of kept draw ${t} of chain ${c} is ${v}; the kernel produced a non-finite position.`,
          );
        }
        values[row + j] = v;
      }
      logDensity[c * nDraws + t] = state.logDensity;
    }
    out.stats[c] = {
      acceptanceRate: acceptSum / (nDraws * thin),
      divergences,
      evaluations,
      warmupEvaluations,
      ...(treeDepthLimited === undefined ? {} : { treeDepthLimited }),
    };
  }
  return out as Draws;
}

function nonFiniteState(value: number, chain: number, phase: string, step: number): OccamError {
  return new OccamError(
    "non-finite",
    `runChain: the log density of chain ${chain} became ${value} at ${phase} step ${step}; the target or the kernel produced a non-finite value (check the model for NaN and the step size).`,
  );
}
