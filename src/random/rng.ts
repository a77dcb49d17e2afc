import { checkInteger, OccamError } from "../errors.js";
import { betaFactory, gammaFactory, mt19937, normalFactory } from "../math/stdlib.js";

/**
 * A seeded, splittable source of random numbers. Nothing in occam uses the global unseeded generator:
 * every random choice flows from an `Rng`, so the same seed gives the same result bit for bit.
 */
export interface Rng {
  /** A uniform variate on [0, 1) with 53 random bits. */
  uniform(): number;
  /** A standard normal variate. */
  normal(): number;
  /** A Gamma(shape, rate = 1) variate; any shape > 0, small shapes included. */
  gamma(shape: number): number;
  /** A Beta(a, b) variate. */
  beta(a: number, b: number): number;
  /** A uniform integer in {0, …, n − 1}. */
  integer(n: number): number;
  /**
   * `n` independent generators. Each child is seeded from this generator's stream and its index,
   * so splitting is deterministic and does not depend on how the children are later scheduled.
   */
  split(n: number): Rng[];
}

class MersenneRng implements Rng {
  private readonly words: () => number;
  readonly uniform: () => number;
  readonly normal: () => number;
  private readonly gammaVariate: (shape: number, rate: number) => number;
  private readonly betaVariate: (a: number, b: number) => number;

  constructor(seed: number | Uint32Array) {
    // The stdlib typings omit `normalized`, which the runtime object has.
    const generator = mt19937.factory({ seed }) as unknown as (() => number) & {
      normalized: () => number;
    };
    this.words = generator;
    // 53-bit uniform on [0, 1): the stdlib generator combines two 32-bit words.
    this.uniform = generator.normalized;
    const prng = this.uniform;
    this.normal = normalFactory.factory(0, 1, { prng });
    this.gammaVariate = gammaFactory.factory({ prng });
    this.betaVariate = betaFactory.factory({ prng });
  }

  gamma(shape: number): number {
    if (!(shape > 0 && Number.isFinite(shape))) {
      throw new OccamError("invalid-argument", `gamma shape must be a finite number > 0, got ${shape}.`);
    }
    return this.gammaVariate(shape, 1);
  }

  beta(a: number, b: number): number {
    if (!(a > 0 && b > 0 && Number.isFinite(a) && Number.isFinite(b))) {
      throw new OccamError("invalid-argument", `beta parameters must be finite and > 0, got (${a}, ${b}).`);
    }
    return this.betaVariate(a, b);
  }

  integer(n: number): number {
    checkInteger(n, "integer range", 1);
    return Math.floor(this.uniform() * n);
  }

  split(n: number): Rng[] {
    checkInteger(n, "number of streams", 1);
    // Four fresh words from this stream plus the child's index seed each child through
    // MT19937's init_by_array, which decorrelates streams with nearby seeds.
    const base = [this.words(), this.words(), this.words(), this.words()];
    const children: Rng[] = [];
    for (let i = 0; i < n; i++) {
      children.push(new MersenneRng(new Uint32Array([base[0], base[1], base[2], base[3], i])));
    }
    return children;
  }
}

/**
 * Creates a generator from an integer seed in [0, 2^32 − 1].
 *
 * @example
 * const rng = createRng(42);
 * const [a, b] = rng.split(2); // independent streams for two chains
 */
export function createRng(seed: number): Rng {
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw new OccamError("invalid-argument", `seed must be an integer in [0, 4294967295], got ${seed}.`);
  }
  // Seed through init_by_array with a fixed second word: small seeds are then well mixed, and seed 0
  // is valid (the stdlib generator rejects an all-zero seed array).
  return new MersenneRng(new Uint32Array([seed, 0x9e3779b9]));
}
