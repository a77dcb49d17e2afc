/** Stan's initial step-size search for Hamiltonian samplers (its `init_stepsize`). */
import { OccamError } from "../errors.js";
import type { Rng } from "../random/rng.js";
import { describePosition, isUsableLogDensity } from "./accept.js";
import type { GradLogDensityFn, Integrator } from "./integrators.js";
import type { Metric } from "./metric.js";

/** Where the search starts: a position with its log density and gradient. */
export interface SearchStart {
  readonly position: Float64Array;
  readonly logDensity: number;
  readonly gradient: Float64Array;
}

/** Scratch buffers of one trial step (each of the target's dimension). */
export interface TrialBuffers {
  readonly q: Float64Array;
  readonly p: Float64Array;
  readonly g: Float64Array;
}

/**
 * Doubles or halves the step size from `stepSize` until one integrator step from `start`, with fresh
 * momenta each try, moves its acceptance across 0.8, as Stan does before warm-up and after each new
 * metric. A trial whose energy is not finite (the model overflows) counts as an infinitely bad step.
 * Returns the step size and the gradient evaluations spent. Throws a `non-finite` OccamError naming
 * `kernel` when the step passes 1e7 (an improper target) or underflows to 0.
 */
export function searchStepSize(
  kernel: string,
  grad: GradLogDensityFn,
  integrator: Integrator,
  metric: Metric,
  start: SearchStart,
  stepSize: number,
  rng: Rng,
  buffers: TrialBuffers,
): { stepSize: number; evaluations: number } {
  const { q, p, g } = buffers;
  let evaluations = 0;
  const logTarget = Math.log(0.8);
  const trial = (): number => {
    metric.sampleMomentum(rng, p);
    q.set(start.position);
    g.set(start.gradient);
    const h0 = -start.logDensity + metric.kinetic(p);
    const logp = integrator.step(grad, q, p, g, metric, stepSize);
    evaluations += integrator.gradientsPerStep;
    const h = isUsableLogDensity(logp) ? -logp + metric.kinetic(p) : Number.POSITIVE_INFINITY;
    return Number.isNaN(h) ? Number.NEGATIVE_INFINITY : h0 - h;
  };
  const direction = trial() > logTarget ? 1 : -1;
  for (;;) {
    const deltaH = trial();
    if (direction === 1 && !(deltaH > logTarget)) break;
    if (direction === -1 && !(deltaH < logTarget)) break;
    stepSize = direction === 1 ? 2 * stepSize : 0.5 * stepSize;
    if (stepSize > 1e7) {
      throw new OccamError(
        "non-finite",
        `${kernel}: the step-size search passed 1e7 near ${describePosition(start.position)}; the target looks improper (check the model's prior).`,
      );
    }
    if (stepSize === 0) {
      throw new OccamError(
        "non-finite",
        `${kernel}: no step size small enough was found near ${describePosition(start.position)}; is the log density continuous there?`,
      );
    }
  }
  return { stepSize, evaluations };
}
