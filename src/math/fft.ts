import { OccamError } from "../errors.js";

/**
 * Radix-2 fast Fourier transforms on Float64Array, enough for autocorrelations: an in-place complex
 * transform and a real transform that packs a real sequence of length N into a complex one of length
 * N/2 (half the work of transforming it as complex). Sign convention: the forward transform is
 * X[k] = Σ x[n] e^{−2πi nk/N}; the inverse divides by N.
 */

/** True when `n` is a positive integer power of two. */
export function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && (n & (n - 1)) === 0;
}

/** The smallest power of two that is at least `n` (1 for n ≤ 1). */
export function nextPowerOfTwo(n: number): number {
  if (!(n <= 2 ** 30)) {
    throw new OccamError(
      "invalid-argument",
      `nextPowerOfTwo: ${n} is too large for a radix-2 FFT (max 2^30).`,
    );
  }
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

interface Twiddles {
  readonly cos: Float64Array;
  readonly sin: Float64Array;
}

const twiddleCache = new Map<number, Twiddles>();
const MAX_CACHED = 1 << 22;

/**
 * cos(2πk/n) and sin(2πk/n) for k = 0 … n/2, each computed directly by Math.cos / Math.sin rather than
 * by a recurrence (a recurrence accumulates O(n ε) error; direct evaluation stays at O(ε)). Cached per
 * length, since ESS computes many transforms of the same length; the tables are read-only.
 */
function twiddles(n: number): Twiddles {
  const cached = twiddleCache.get(n);
  if (cached !== undefined) return cached;
  const half = n >> 1;
  const cos = new Float64Array(half + 1);
  const sin = new Float64Array(half + 1);
  for (let k = 0; k <= half; k++) {
    const angle = (2 * Math.PI * k) / n;
    cos[k] = Math.cos(angle);
    sin[k] = Math.sin(angle);
  }
  const table = { cos, sin };
  if (n <= MAX_CACHED) twiddleCache.set(n, table);
  return table;
}

function checkLength(n: number, what: string): void {
  if (!isPowerOfTwo(n)) {
    throw new OccamError(
      "invalid-argument",
      `${what}: length must be a power of two, got ${n}; zero-pad the input.`,
    );
  }
}

/**
 * In-place complex FFT of (`re`, `im`), both of the same power-of-two length. With `inverse` the
 * transform uses e^{+2πi nk/N} and divides by N, so `fft(re, im); fft(re, im, true)` is the identity.
 */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (im.length !== n) {
    throw new OccamError("dimension-mismatch", `fft: re has length ${n} but im has length ${im.length}.`);
  }
  checkLength(n, "fft");
  if (n === 1) return;
  // Bit-reversal permutation, so the butterflies below work in place (iterative Cooley–Tukey).
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      let t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  const { cos: cosT, sin: sinT } = twiddles(n);
  const sign = inverse ? 1 : -1;
  for (let size = 2; size <= n; size *= 2) {
    const h = size >> 1;
    const stride = (n / size) | 0;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < h; k++) {
        const wr = cosT[k * stride];
        const wi = sign * sinT[k * stride];
        const a = start + k;
        const b = a + h;
        const tr = re[b] * wr - im[b] * wi;
        const ti = re[b] * wi + im[b] * wr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
  if (inverse) {
    const scale = 1 / n;
    for (let i = 0; i < n; i++) {
      re[i] *= scale;
      im[i] *= scale;
    }
  }
}

/**
 * Forward FFT of a real sequence `x` of power-of-two length N ≥ 2. Writes the N/2 + 1 non-redundant
 * bins X[0..N/2] into `re` and `im` (each of length N/2 + 1); the others follow from X[N−k] = conj X[k].
 */
export function realFft(x: Float64Array, re: Float64Array, im: Float64Array): void {
  const n = x.length;
  checkLength(n, "realFft");
  if (n < 2) throw new OccamError("invalid-argument", "realFft: the input needs at least 2 values.");
  const m = n >> 1;
  if (re.length !== m + 1 || im.length !== m + 1) {
    throw new OccamError(
      "dimension-mismatch",
      `realFft: outputs must have length N/2 + 1 = ${m + 1}, got ${re.length} and ${im.length}.`,
    );
  }
  // Pack z[j] = x[2j] + i x[2j+1] and transform it at half length: Z = E + iO, where E and O are the
  // transforms of the even and odd samples. Then X[k] = E[k] + e^{−2πik/N} O[k].
  const zr = new Float64Array(m);
  const zi = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    zr[j] = x[2 * j];
    zi[j] = x[2 * j + 1];
  }
  fft(zr, zi);
  const w = twiddles(n);
  for (let k = 0; k <= m; k++) {
    const a = k % m;
    const b = (m - k) % m;
    // E[k] = (Z[k] + conj Z[m−k]) / 2, O[k] = (Z[k] − conj Z[m−k]) / (2i).
    const er = 0.5 * (zr[a] + zr[b]);
    const ei = 0.5 * (zi[a] - zi[b]);
    const or = 0.5 * (zi[a] + zi[b]);
    const oi = -0.5 * (zr[a] - zr[b]);
    const wr = w.cos[k];
    const wi = -w.sin[k];
    re[k] = er + wr * or - wi * oi;
    im[k] = ei + wr * oi + wi * or;
  }
}

/**
 * Inverse of {@link realFft}: from the bins X[0..N/2] of a real sequence (in `re`, `im`, each of
 * length N/2 + 1) writes the sequence into `out` (length N, a power of two ≥ 2), divided by N as the
 * inverse transform is. The imaginary parts of X[0] and X[N/2], zero for a real sequence, are ignored.
 */
export function inverseRealFft(re: Float64Array, im: Float64Array, out: Float64Array): void {
  const n = out.length;
  checkLength(n, "inverseRealFft");
  if (n < 2) throw new OccamError("invalid-argument", "inverseRealFft: the output needs at least 2 values.");
  const m = n >> 1;
  if (re.length !== m + 1 || im.length !== m + 1) {
    throw new OccamError(
      "dimension-mismatch",
      `inverseRealFft: inputs must have length N/2 + 1 = ${m + 1}, got ${re.length} and ${im.length}.`,
    );
  }
  // Undo the packing of realFft: E[k] = (X[k] + conj X[m−k]) / 2, O[k] = (X[k] − conj X[m−k]) e^{2πik/N} / 2,
  // Z = E + iO, and the inverse half-length transform of Z interleaves the even and odd samples.
  const zr = new Float64Array(m);
  const zi = new Float64Array(m);
  const w = twiddles(n);
  for (let k = 0; k < m; k++) {
    const xr = re[k];
    const xi = k === 0 ? 0 : im[k];
    const yr = re[m - k];
    const yi = k === 0 ? 0 : -im[m - k]; // conj X[m−k]; X[m] is real for a real sequence
    const er = 0.5 * (xr + yr);
    const ei = 0.5 * (xi + yi);
    const dr = 0.5 * (xr - yr);
    const di = 0.5 * (xi - yi);
    const wr = w.cos[k];
    const wi = w.sin[k];
    const or = dr * wr - di * wi;
    const oi = dr * wi + di * wr;
    zr[k] = er - oi;
    zi[k] = ei + or;
  }
  fft(zr, zi, true);
  for (let j = 0; j < m; j++) {
    out[2 * j] = zr[j];
    out[2 * j + 1] = zi[j];
  }
}
