import { describe, expect, it } from "vitest";
import { OccamError } from "../../src/errors.js";
import { createRng } from "../../src/random/rng.js";
import { type Move, mixture, moveStep } from "../../src/samplers/mixture.js";

describe("mixture", () => {
  it("chooses each move with probability proportional to its weight", () => {
    const tag =
      (j: number): Move<number> =>
      () => ({ proposal: j, logFactor: 0 });
    const move = mixture([
      [tag(0), 1],
      [tag(1), 3],
    ]);
    const rng = createRng(3);
    const N = 20000;
    let ones = 0;
    for (let t = 0; t < N; t++) ones += move(rng, 0).proposal;
    const se = Math.sqrt((0.75 * 0.25) / N);
    expect(Math.abs(ones / N - 0.75)).toBeLessThan(4 * se);
  });

  it("refuses empty lists and bad weights", () => {
    expect(() => mixture([])).toThrow(OccamError);
    expect(() => mixture([[() => ({ proposal: 0, logFactor: 0 }), 0]])).toThrow(/weight/);
  });

  it("moveStep rejects an impossible move without evaluating the target", () => {
    let evaluated = false;
    const r = moveStep(
      createRng(1),
      () => ({ proposal: 1, logFactor: Number.NEGATIVE_INFINITY }),
      0,
      () => {
        evaluated = true;
        return 0;
      },
    );
    expect(r.accepted).toBe(false);
    expect(evaluated).toBe(false);
  });

  it("moveStep samples a two-state target exactly (symmetric flip move)", () => {
    // π(1) / π(0) = 3: the chain's time in state 1 must be 3/4.
    const flip: Move<number> = (_rng, s) => ({ proposal: 1 - s, logFactor: 0 });
    const logPi = [0, Math.log(3)];
    const rng = createRng(5);
    let s = 0;
    let ones = 0;
    const N = 20000;
    for (let t = 0; t < N; t++) {
      const r = moveStep(rng, flip, s, (a, b) => logPi[b] - logPi[a]);
      if (r.accepted) s = r.proposal;
      ones += s;
    }
    // Lag-1 autocorrelation of this chain is −1/3 (it leaves 1 w.p. 1/3, 0 w.p. 1): the iid se is an overestimate.
    expect(Math.abs(ones / N - 0.75)).toBeLessThan(4 * Math.sqrt((0.75 * 0.25) / N));
  });
});
