import { OccamError } from "../errors.js";

/**
 * Checks a set of chains for one parameter: at least one chain, every chain a Float64Array of the same
 * length, every value finite. Returns the common length.
 */
export function checkChains(chains: readonly Float64Array[], where: string): number {
  if (!Array.isArray(chains) || chains.length === 0) {
    throw new OccamError(
      "invalid-argument",
      `${where}: give a non-empty array of chains (one Float64Array each).`,
    );
  }
  const n = chains[0]?.length;
  for (let c = 0; c < chains.length; c++) {
    const chain = chains[c];
    if (!(chain instanceof Float64Array)) {
      throw new OccamError("invalid-argument", `${where}: chain ${c} must be a Float64Array.`);
    }
    if (chain.length !== n) {
      throw new OccamError(
        "dimension-mismatch",
        `${where}: chain ${c} has ${chain.length} draws but chain 0 has ${n}; give chains of equal length.`,
      );
    }
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(chain[i])) {
        throw new OccamError(
          "non-finite",
          `${where}: draw ${i} of chain ${c} is ${chain[i]}; draws must be finite.`,
        );
      }
    }
  }
  return n;
}

/**
 * Splits each chain into its first and second halves (dropping the middle draw of an odd-length
 * chain), as Stan, ArviZ and posterior do, so that a trend within a chain shows up as disagreement
 * between chains. The halves are subarray views, not copies.
 */
export function splitChains(chains: readonly Float64Array[]): Float64Array[] {
  const out: Float64Array[] = [];
  for (const chain of chains) {
    const half = Math.floor(chain.length / 2);
    out.push(chain.subarray(0, half), chain.subarray(chain.length - half));
  }
  return out;
}

/** True when every draw of every chain equals the first draw of chain 0. */
export function allEqual(chains: readonly Float64Array[]): boolean {
  const first = chains[0][0];
  for (const chain of chains) {
    for (let i = 0; i < chain.length; i++) if (chain[i] !== first) return false;
  }
  return true;
}

/** Mean of `x`, two-pass: the second pass removes most of the rounding error of the first. */
export function mean(x: Float64Array): number {
  const n = x.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x[i];
  const m = sum / n;
  let correction = 0;
  for (let i = 0; i < n; i++) correction += x[i] - m;
  return m + correction / n;
}

/** Sample variance of `x` with the n − 1 denominator. */
export function variance(x: Float64Array): number {
  const n = x.length;
  const m = mean(x);
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const d = x[i] - m;
    ss += d * d;
  }
  return ss / (n - 1);
}
