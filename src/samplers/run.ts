import { OccamError } from "../errors.js";
import { type ChainStats, Draws } from "../model/draws.js";
import type { Rng } from "../random/rng.js";
import { createRng } from "../random/rng.js";
import type { Adaptation, Kernel, PositionState, StepInfo, WarmupRun } from "./kernel.js";
import { isAdaptation, isKernelOrAdaptation } from "./kernel.js";

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
   * Iterations run and discarded before the kept draws; an {@link Adaptation} tunes the kernel during them.
   * @defaultValue 1000
   */
  warmup?: number;
  /**
   * Keep every thin-th iteration after warm-up (the chain runs draws × thin sampling iterations).
   * @defaultValue 1
   */
  thin?: number;
  /**
   * Number of chains, run one after another (with `earlyStop`, each up to the checkpoint first), each
   * from its own stream `rng.split(chains)[c]` (and, from an adaptation, its own tuning), so the result
   * does not depend on how chains are scheduled.
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
  /**
   * Asked once, after `afterDraws` kept draws of every chain, whether to stop there (chains that
   * already disagree beyond what more draws could mend): when `stop` returns true, the run returns
   * those draws, `afterDraws` per chain.
   */
  earlyStop?: { readonly afterDraws: number; readonly stop: (draws: Draws) => boolean };
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
  earlyStop: RunChainOptions["earlyStop"];
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
  const { earlyStop } = options;
  if (earlyStop !== undefined) {
    positiveInteger(earlyStop.afterDraws, "earlyStop.afterDraws", 1);
    if (typeof earlyStop.stop !== "function") {
      throw new OccamError(
        "invalid-argument",
        "runChain: earlyStop.stop must be a function (draws) => boolean.",
      );
    }
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
    earlyStop: options.earlyStop,
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
 * Runs a kernel, or a warm-up that tunes one: for each chain, `init(start)`, `warmup` steps (with an
 * {@link Adaptation}, its steps, after which its tuned kernel takes over), then draws × thin steps
 * keeping every thin-th state. Returns the kept positions and log densities with per-chain
 * {@link ChainStats}: the acceptance rate is the mean of `info.acceptProbability` over the sampling
 * steps (a lower-variance estimate than the accepted fraction), divergences count sampling steps with
 * `info.divergent`, and evaluations sum `info.evaluations` (the evaluation `init` makes is not counted).
 * The same seed gives bit-identical draws, with or without `earlyStop`, up to where it stops.
 *
 * Pass a factory `(chain) => kernel` for a kernel that keeps state of its own between steps.
 * Throws an `OccamError`: `non-finite` when a start is non-finite or has a non-finite log density, or a
 * state's log density (or a kept position) becomes non-finite; `dimension-mismatch` when starting points
 * differ in length from each other, from `names` or from the kernel's position; `aborted` on `signal`.
 *
 * @example
 * const draws = runChain(hmcWarmup({ target, trajectoryLength: 2 }), {
 *   draws: 1000, warmup: 500, chains: 4, seed: 1, initial: (rng) => model.samplePrior(rng),
 * });
 */
export function runChain<S extends PositionState, I extends StepInfo>(
  kernel: Sampler<S, I>,
  options: RunChainOptions,
): Draws {
  const opts = resolveOptions(options);
  const { draws: nDraws, chains: nChains } = opts;
  checkKernel(kernel);
  const streams = opts.rng.split(nChains);
  // With an early stop, every chain runs up to the checkpoint, then on to the end: each has its own
  // stream (and, from a factory, its own kernel), so the order changes none of the draws.
  const checkpoint = opts.earlyStop === undefined ? nDraws : Math.min(opts.earlyStop.afterDraws, nDraws);
  const chains: ChainRun<S, I>[] = [];
  let out: Draws | undefined;
  for (let c = 0; c < nChains; c++) {
    const chain = startChain(kernel, c, streams[c], opts, out?.dim);
    out ??= new Draws({ dim: chain.start.length, nChains, nDraws, names: opts.names });
    warmUp(chain, opts);
    sampleDraws(chain, 0, checkpoint, out, opts);
    chains.push(chain);
  }
  if (out === undefined) throw new OccamError("internal", "runChain: no chain was run.");
  const draws = out;
  if (checkpoint < nDraws && opts.earlyStop !== undefined) {
    const soFar = firstDraws(draws, checkpoint);
    if (opts.earlyStop.stop(soFar)) {
      chains.forEach((chain, c) => {
        soFar.stats[c] = chainStats(chain, checkpoint * opts.thin);
      });
      return soFar;
    }
  }
  for (const chain of chains) sampleDraws(chain, checkpoint, nDraws, draws, opts);
  chains.forEach((chain, c) => {
    draws.stats[c] = chainStats(chain, nDraws * opts.thin);
  });
  return draws;
}

/**
 * What `runChain` runs: a kernel, a warm-up that tunes one for each chain, or a factory that makes
 * either for each chain.
 */
export type Sampler<S, I> =
  | Kernel<S, I>
  | Adaptation<S, I>
  | ((chain: number) => Kernel<S, I> | Adaptation<S, I>);

/** Throws unless `kernel` is a kernel, a warm-up or a factory. */
function checkKernel<S extends PositionState, I extends StepInfo>(kernel: Sampler<S, I>): void {
  if (typeof kernel !== "function" && !isKernelOrAdaptation(kernel)) {
    throw new OccamError(
      "invalid-argument",
      "runChain: kernel must be a kernel (init and step), a warm-up (init and start), or a function (chain) => kernel.",
    );
  }
}

/**
 * One chain of a run: its warm-up (until it ends) and kernel, stream, current state, and what its steps
 * have cost so far.
 */
interface ChainRun<S extends PositionState, I extends StepInfo> {
  readonly index: number;
  warmup: WarmupRun<S, I> | undefined;
  kernel: Kernel<S, I> | undefined;
  readonly rng: Rng;
  readonly start: Float64Array;
  state: S;
  /** Iterations done, warm-up and sampling. */
  iteration: number;
  warmupEvaluations: number;
  evaluations: number;
  acceptSum: number;
  divergences: number;
  treeDepthLimited: number | undefined;
}

/** Chain `c`'s kernel and starting state, checked against the run's dimension `dim` (chain 0's). */
function startChain<S extends PositionState, I extends StepInfo>(
  kernel: Sampler<S, I>,
  c: number,
  rng: Rng,
  opts: ResolvedOptions,
  dim: number | undefined,
): ChainRun<S, I> {
  if (opts.signal?.aborted) throw aborted(c, 0, totalIterations(opts));
  const k = typeof kernel === "function" ? kernel(c) : kernel;
  if (!isKernelOrAdaptation(k)) {
    throw new OccamError(
      "invalid-argument",
      `runChain: the kernel factory returned no kernel for chain ${c}.`,
    );
  }
  const start = startingPoint(opts.initial, rng, c);
  if (dim === undefined) {
    if (start.length < 1) throw new OccamError("invalid-argument", "runChain: the starting point is empty.");
    const kernelDim = (k as { dim?: unknown }).dim;
    if (typeof kernelDim === "number" && kernelDim !== start.length) {
      throw new OccamError(
        "dimension-mismatch",
        `runChain: the starting point has length ${start.length} but the kernel's dim is ${kernelDim}.`,
      );
    }
  } else if (start.length !== dim) {
    throw new OccamError(
      "dimension-mismatch",
      `runChain: the starting point of chain ${c} has length ${start.length} but chain 0's has ${dim}.`,
    );
  }
  for (let j = 0; j < start.length; j++) {
    if (!Number.isFinite(start[j])) {
      throw new OccamError(
        "non-finite",
        `runChain: coordinate ${j} of the starting point of chain ${c} is ${start[j]}; start at finite values.`,
      );
    }
  }
  const state = k.init(start);
  if (state.position.length !== start.length) {
    throw new OccamError(
      "dimension-mismatch",
      `runChain: the kernel's state has ${state.position.length} coordinates but the starting point has ${start.length}; check the kernel's target dimension.`,
    );
  }
  if (!Number.isFinite(state.logDensity)) {
    throw new OccamError(
      "non-finite",
      `runChain: the log density at the starting point of chain ${c} is ${state.logDensity}; start where the target density is positive and finite (inside the prior's support).`,
    );
  }
  const adaptive = isAdaptation(k);
  return {
    index: c,
    warmup: adaptive ? k.start(opts.warmup) : undefined,
    kernel: adaptive ? undefined : k,
    rng,
    start,
    state,
    iteration: 0,
    warmupEvaluations: 0,
    evaluations: 0,
    acceptSum: 0,
    divergences: 0,
    treeDepthLimited: undefined,
  };
}

function totalIterations(opts: ResolvedOptions): number {
  return opts.warmup + opts.draws * opts.thin;
}

/** Reports progress after the chain's latest iteration, about 100 times per chain and after its last. */
function report(
  chain: ChainRun<PositionState, StepInfo>,
  opts: ResolvedOptions,
  phase: Progress["phase"],
): void {
  if (opts.onProgress === undefined) return;
  const total = totalIterations(opts);
  const every = Math.max(1, Math.ceil(total / 100));
  if (chain.iteration % every === 0 || chain.iteration === total) {
    opts.onProgress({ chain: chain.index, iteration: chain.iteration, total, phase });
  }
}

/** The chain's warm-up: `opts.warmup` steps, of its adaptation's run if it has one, whose tuned kernel then takes over. */
function warmUp<S extends PositionState, I extends StepInfo>(
  chain: ChainRun<S, I>,
  opts: ResolvedOptions,
): void {
  const run = chain.warmup ?? (chain.kernel as Kernel<S, I>);
  for (let i = 0; i < opts.warmup; i++) {
    if (opts.signal?.aborted) throw aborted(chain.index, chain.iteration, totalIterations(opts));
    const result = run.step(chain.rng, chain.state);
    chain.state = result.state;
    chain.warmupEvaluations += result.info.evaluations;
    if (!Number.isFinite(chain.state.logDensity))
      throw nonFiniteState(chain.state.logDensity, chain.index, "warm-up", i);
    chain.iteration++;
    report(chain, opts, "warmup");
  }
  if (chain.warmup !== undefined) {
    chain.kernel = chain.warmup.finish();
    chain.warmup = undefined;
  }
}

/** The chain's kept draws `from` … `to` − 1 (thin steps each), written into `out`. */
function sampleDraws<S extends PositionState, I extends StepInfo>(
  chain: ChainRun<S, I>,
  from: number,
  to: number,
  out: Draws,
  opts: ResolvedOptions,
): void {
  const { thin } = opts;
  const c = chain.index;
  const dim = out.dim;
  const kernel = chain.kernel as Kernel<S, I>;
  for (let t = from; t < to; t++) {
    for (let s = 0; s < thin; s++) {
      if (opts.signal?.aborted) throw aborted(c, chain.iteration, totalIterations(opts));
      const result = kernel.step(chain.rng, chain.state);
      chain.state = result.state;
      const info = result.info;
      chain.acceptSum += info.acceptProbability;
      if (info.divergent === true) chain.divergences++;
      if (info.treeDepthLimited !== undefined)
        chain.treeDepthLimited = (chain.treeDepthLimited ?? 0) + (info.treeDepthLimited ? 1 : 0);
      chain.evaluations += info.evaluations;
      if (!Number.isFinite(chain.state.logDensity))
        throw nonFiniteState(chain.state.logDensity, c, "sampling", t * thin + s);
      chain.iteration++;
      report(chain, opts, "sampling");
    }
    const position = chain.state.position;
    const row = (c * out.nDraws + t) * dim;
    for (let j = 0; j < dim; j++) {
      const v = position[j];
      if (!Number.isFinite(v)) {
        throw new OccamError(
          "non-finite",
          `runChain: coordinate ${j} of kept draw ${t} of chain ${c} is ${v}; the kernel produced a non-finite position.`,
        );
      }
      out.values[row + j] = v;
    }
    out.logDensity[c * out.nDraws + t] = chain.state.logDensity;
  }
}

/** What a chain's `steps` sampling steps did (see `ChainStats`). */
function chainStats(chain: ChainRun<PositionState, StepInfo>, steps: number): ChainStats {
  return {
    acceptanceRate: chain.acceptSum / steps,
    divergences: chain.divergences,
    evaluations: chain.evaluations,
    warmupEvaluations: chain.warmupEvaluations,
    ...(chain.treeDepthLimited === undefined ? {} : { treeDepthLimited: chain.treeDepthLimited }),
  };
}

/** The first `count` draws of every chain of `all`, in a store of their own. */
function firstDraws(all: Draws, count: number): Draws {
  const { dim, nChains } = all;
  const part = new Draws({ dim, nChains, nDraws: count, names: all.names });
  for (let c = 0; c < nChains; c++) {
    part.values.set(
      all.values.subarray(c * all.nDraws * dim, (c * all.nDraws + count) * dim),
      c * count * dim,
    );
    part.logDensity.set(all.logDensity.subarray(c * all.nDraws, c * all.nDraws + count), c * count);
  }
  return part;
}

function nonFiniteState(value: number, chain: number, phase: string, step: number): OccamError {
  return new OccamError(
    "non-finite",
    `runChain: the log density of chain ${chain} became ${value} at ${phase} step ${step}; the target or the kernel produced a non-finite value (check the model for NaN and the step size).`,
  );
}
