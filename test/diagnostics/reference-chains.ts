import mt19937 from "@stdlib/random-base-mt19937";
import normalFactory from "@stdlib/random-base-normal";

/**
 * A standard-normal stream fixed for good: MT19937 seeded by `init_by_array([seed])` with stdlib's
 * normal variates. The reference values of the ESS and R̂ tests were computed (with a line-by-line
 * port of R posterior's `.ess` and `.rhat`) on exactly these numbers, so they must not follow changes
 * to how `createRng` seeds its streams.
 */
function referenceNormals(seed: number): () => number {
  const generator = mt19937.factory({ seed: new Uint32Array([seed]) }) as unknown as {
    normalized: () => number;
  };
  return normalFactory.factory(0, 1, { prng: generator.normalized });
}

/** Three AR(1) (φ = 0.6) chains of 101 draws with offsets 0, 0.1 and 0.2. */
export function referenceChains(): Float64Array[] {
  const normal = referenceNormals(2024);
  const chains: Float64Array[] = [];
  for (let c = 0; c < 3; c++) {
    let v = normal();
    const x = new Float64Array(101);
    for (let i = 0; i < 101; i++) {
      v = 0.6 * v + 0.8 * normal();
      x[i] = v + 0.1 * c;
    }
    chains.push(x);
  }
  return chains;
}

/** One antithetic AR(1) (φ = −0.7) chain of 64 draws. */
export function referenceAntitheticChain(): Float64Array {
  const normal = referenceNormals(5);
  const anti = new Float64Array(64);
  let v = normal();
  for (let i = 0; i < 64; i++) {
    v = -0.7 * v + Math.sqrt(1 - 0.49) * normal();
    anti[i] = v;
  }
  return anti;
}
