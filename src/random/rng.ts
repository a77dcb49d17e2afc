import { createRequire } from "node:module";
import type BetaFactory from "@stdlib/random-base-beta";
import type GammaFactory from "@stdlib/random-base-gamma";
import type Mt19937 from "@stdlib/random-base-mt19937";
import type NormalFactory from "@stdlib/random-base-normal";
import { checkInteger, OccamError } from "../errors.js";

/** stdlib's generators, loaded at the first `createRng` (see {@link generators}). */
interface Generators {
  mt19937: typeof Mt19937;
  normal: typeof NormalFactory;
  gamma: typeof GammaFactory;
  beta: typeof BetaFactory;
}

let loaded: Generators | undefined;

/**
 * stdlib's generators, required on first use rather than imported: they are CommonJS packages of a
 * few hundred small modules whose loading took about 130 ms of every `occam` start, also of commands
 * that never draw a random number (an exact `occam compare`).
 */
function generators(): Generators {
  if (loaded === undefined) {
    const require = createRequire(import.meta.url);
    loaded = {
      mt19937: require("@stdlib/random-base-mt19937"),
      normal: require("@stdlib/random-base-normal"),
      gamma: require("@stdlib/random-base-gamma"),
      beta: require("@stdlib/random-base-beta"),
    };
  }
  return loaded;
}

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
    const stdlib = generators();
    // The stdlib typings omit `normalized`, which the runtime object has.
    const generator = stdlib.mt19937.factory({ seed }) as unknown as (() => number) & {
      normalized: () => number;
    };
    this.words = generator;
    // 53-bit uniform on [0, 1): the stdlib generator combines two 32-bit words.
    this.uniform = generator.normalized;
    const prng = this.uniform;
    this.normal = stdlib.normal.factory(0, 1, { prng });
    this.gammaVariate = stdlib.gamma.factory({ prng });
    this.betaVariate = stdlib.beta.factory({ prng });
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
