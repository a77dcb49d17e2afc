/** Progress lines of the experiments that run as units, with an estimate of the time left. */

/**
 * An `onUnit` callback (see `runUnits`) that tells `onProgress` which unit finished, how many are done,
 * and, from the mean time per unit so far, about how long the rest will take: "eggbox/smc/0 done (12
 * of 540, about 25 min left)". The estimate is rough (units differ in cost) and firms up as they finish.
 */
export function unitProgress(
  onProgress: ((step: string) => void) | undefined,
): ((done: number, total: number, key: string) => void) | undefined {
  if (onProgress === undefined) return undefined;
  const start = performance.now();
  return (done, total, key) => {
    const left = ((performance.now() - start) / done) * (total - done);
    onProgress(`${key} done (${done} of ${total}${done < total ? `, about ${duration(left)} left` : ""})`);
  };
}

/** A duration in words: seconds under two minutes, minutes under two hours, else hours. */
function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${Math.max(1, Math.round(s))} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
